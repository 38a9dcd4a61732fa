/// What a header field of a request may carry: what the service gives (a session's token, a
/// definition's id) goes into headers only when a header can carry it whole. A line break
/// would start another field, a NUL cut the value short; transports refuse or drop such
/// fields rather than send them.
enum HTTPFieldValue {
    /// Whether `value` is non-empty, visible ASCII and spaces only, with no leading or trailing space.
    static func isSafe(_ value: String) -> Bool {
        guard let first = value.utf8.first, let last = value.utf8.last, first != 0x20, last != 0x20 else { return false }
        return value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }
}
