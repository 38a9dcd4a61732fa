/// Hosts as they go in a URL.
enum URLHost {
    /// `host` for a URL's authority: an IPv6 address in brackets, once.
    static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
