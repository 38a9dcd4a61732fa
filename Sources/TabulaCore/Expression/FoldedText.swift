/// Text compared the way a search field compares it: both sides in their `lowercased()`
/// form. Text that is ASCII on both sides is compared byte by byte, folding A–Z, without
/// building the lowercased strings (a search over a long list asks this of every item);
/// anything else goes through `lowercased()`, whose mappings are Unicode's.
enum FoldedText {
    /// Whether `text` contains `part`; an empty `part` is in everything.
    static func contains(_ text: String, _ part: String) -> Bool {
        if part.isEmpty { return true }
        if let found = ascii(text, part, { $0.search($1) }) { return found }
        return text.lowercased().contains(part.lowercased())
    }

    /// Whether `text` starts with `part`.
    static func starts(_ text: String, with part: String) -> Bool {
        if let found = ascii(text, part, { $0.count >= $1.count && $0.matches($1, at: 0) }) { return found }
        return text.lowercased().hasPrefix(part.lowercased())
    }

    /// `body` on both texts' bytes when both are ASCII and stored contiguously; `nil` otherwise.
    private static func ascii(_ text: String, _ part: String, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) -> Bool? {
        var text = text
        var part = part
        return text.withUTF8 { textBytes in
            part.withUTF8 { partBytes in
                guard textBytes.allSatisfy({ $0 < 0x80 }), partBytes.allSatisfy({ $0 < 0x80 }) else { return nil }
                return body(textBytes, partBytes)
            }
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether `part` occurs in these ASCII bytes, A–Z folded to a–z.
    fileprivate func search(_ part: UnsafeBufferPointer<UInt8>) -> Bool {
        guard part.count <= count else { return false }
        for start in 0...(count - part.count) where matches(part, at: start) { return true }
        return false
    }

    /// Whether `part` is at `start`, A–Z folded to a–z.
    fileprivate func matches(_ part: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        for index in part.indices where Self.folded(self[start + index]) != Self.folded(part[index]) { return false }
        return true
    }

    private static func folded(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
