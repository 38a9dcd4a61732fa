/// A URL that request paths are appended to: `--actions-url`, `tabula watch --url`.
enum BaseURL {
    /// Whether `url` is one: `http://` or `https://` in any case (schemes are), a host after
    /// it, and no query or fragment, which an appended path would land inside.
    static func isUsable(_ url: String) -> Bool {
        let lowered = url.lowercased()
        let scheme = lowered.hasPrefix("http://") ? "http://" : lowered.hasPrefix("https://") ? "https://" : nil
        guard let scheme, !url.contains("?"), !url.contains("#") else { return false }
        // A host: something before the first "/" and before a port's ":" (`http:///x` and
        // `http://:8080` name none).
        let authority = url.dropFirst(scheme.count).prefix { $0 != "/" }
        let host = authority.hasPrefix("[") ? authority : authority.prefix { $0 != ":" }
        return !host.isEmpty
    }
}
