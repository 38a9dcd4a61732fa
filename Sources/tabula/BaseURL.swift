/// A URL that request paths are appended to: `--actions-url`, `tabula watch --url`.
enum BaseURL {
    /// Whether `url` is one: `http://` or `https://` in any case (schemes are), a host after
    /// it, and no query or fragment, which an appended path would land inside.
    static func isUsable(_ url: String) -> Bool {
        let lowered = url.lowercased()
        let scheme = lowered.hasPrefix("http://") ? "http://" : lowered.hasPrefix("https://") ? "https://" : nil
        guard let scheme, url.count > scheme.count else { return false }
        return !url.contains("?") && !url.contains("#")
    }
}
