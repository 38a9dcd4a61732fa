/// Strong entity tags derived from a response's bytes (FNV-1a, 64 bits): equal bytes give
/// equal tags, whatever session or revision produced them.
enum ETag {
    static func of(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Whether an If-None-Match header value matches a tag (a list of tags, or `*`), with
    /// the optional whitespace of RFC 9110 (spaces and tabs) around each.
    static func matches(_ header: String, _ tag: String) -> Bool {
        for candidate in header.split(separator: ",") {
            var trimmed = candidate.drop { $0 == " " || $0 == "\t" }
            while trimmed.last == " " || trimmed.last == "\t" { trimmed = trimmed.dropLast() }
            if trimmed == "*" || trimmed == tag || trimmed == "W/" + tag { return true }
        }
        return false
    }
}
