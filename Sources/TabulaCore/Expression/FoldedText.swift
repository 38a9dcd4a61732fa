/// Text compared the way a search field compares it: both sides in their `lowercased()`
/// form, matched character by character as Swift compares characters. A search over a long
/// list asks this of every item, so the text searched for is prepared once
/// (``FoldedPattern``), and text that is ASCII on both sides is compared byte by byte,
/// folding A–Z, without building the lowercased strings; anything else is lowercased and
/// compared as characters.
///
/// An ASCII pattern is first looked for in the bytes of any text, A–Z folded: a character
/// equal to an ASCII one in a lowercased text is that ASCII scalar, which came from an ASCII
/// scalar of the text, unless the text holds one of the scalars that lowercase or normalize
/// into ASCII alone (``ByteClass/mayFoldIntoASCII``). So when the bytes do not hold the
/// pattern, most texts are known not to contain it without lowercasing.
enum FoldedText {
    /// What a text's UTF-8 bytes can settle about it.
    enum ByteClass: UInt8, Sendable {
        /// ASCII: the folded bytes settle every search.
        case ascii
        /// Not ASCII: bytes without the pattern settle a search; a match is checked as characters.
        case other
        /// Holds a scalar other than ASCII whose lowercased form, as Swift compares
        /// characters, equals an ASCII character: U+212A KELVIN SIGN (it lowercases to `k`),
        /// U+037E GREEK QUESTION MARK (canonically `;`) or U+1FEF GREEK VARIA (canonically a
        /// backtick). (U+0130 lowercases to `i` and a combining dot: one character, not `i`.)
        /// Only characters settle a search.
        case mayFoldIntoASCII

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            var ascii = true
            for index in bytes.indices where bytes[index] >= 0x80 {
                ascii = false
                let rest = bytes.count - index
                switch bytes[index] {
                case 0xE2: if rest >= 3 && bytes[index + 1] == 0x84 && bytes[index + 2] == 0xAA { self = .mayFoldIntoASCII; return }
                case 0xCD: if rest >= 2 && bytes[index + 1] == 0xBE { self = .mayFoldIntoASCII; return }
                case 0xE1: if rest >= 3 && bytes[index + 1] == 0xBF && bytes[index + 2] == 0xAF { self = .mayFoldIntoASCII; return }
                default: break
                }
            }
            self = ascii ? .ascii : .other
        }
    }

    /// Whether `text` contains `part`; an empty `part` is in everything.
    static func contains(_ text: String, _ part: FoldedPattern) -> Bool {
        if part.text.isEmpty { return true }
        let settled = text.utf8.withContiguousStorageIfAvailable { bytes in
            answer(bytes, ByteClass(bytes), folded: false, part) { search($0, $1, folded: false) }
        }
        if let found = settled ?? nil { return found }
        let characters = Array(text.lowercased())
        let needle = part.characters
        guard needle.count <= characters.count else { return false }
        for start in 0...(characters.count - needle.count) where characters.matches(needle, at: start) { return true }
        return false
    }

    /// Whether `text` starts with `part`.
    static func starts(_ text: String, with part: FoldedPattern) -> Bool {
        let settled = text.utf8.withContiguousStorageIfAvailable { bytes in
            answer(bytes, ByteClass(bytes), folded: false, part) { $0.count >= $1.count && matches($0, $1, at: 0, folded: false) }
        }
        if let found = settled ?? nil { return found }
        let characters = Array(text.lowercased())
        return part.characters.count <= characters.count && characters.matches(part.characters, at: 0)
    }

    /// What the bytes of a text (A–Z folded already when `folded`) of the class `byteClass`
    /// settle of `contains` or `startsWith` with `part`; `nil` when the characters must
    /// (``contains(_:_:)``, ``starts(_:with:)``).
    ///
    /// `mask` is the text's ``byteMask(_:)``, when it is known: a text that lacks a byte of
    /// the pattern cannot hold it, and most texts of a long list are passed over without
    /// reading their bytes.
    static func settled(
        _ function: ExpressionFunction, bytes: UnsafeBufferPointer<UInt8>, _ byteClass: ByteClass, folded: Bool, mask: UInt64 = ~0,
        _ part: FoldedPattern
    ) -> Bool? {
        if part.asciiBytes != nil, byteClass != .mayFoldIntoASCII, part.mask & ~mask != 0 { return false }
        if function == .startsWith {
            return answer(bytes, byteClass, folded: folded, part) { $0.count >= $1.count && matches($0, $1, at: 0, folded: folded) }
        }
        if part.text.isEmpty { return true }
        return answer(bytes, byteClass, folded: folded, part) { search($0, $1, folded: folded) }
    }

    /// What `find` on the text's bytes and an ASCII pattern's folded bytes says, when that
    /// settles it: when the text is ASCII too, or when the bytes do not hold the pattern and
    /// the text has no scalar that may fold into ASCII. `nil` when the characters must.
    private static func answer(
        _ bytes: UnsafeBufferPointer<UInt8>, _ byteClass: ByteClass, folded: Bool, _ part: FoldedPattern,
        _ find: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Bool? {
        guard let partBytes = part.asciiBytes, byteClass != .mayFoldIntoASCII else { return nil }
        if partBytes.withUnsafeBufferPointer({ find(bytes, $0) }) { return byteClass == .ascii ? true : nil }
        return false
    }

    /// Whether `part` (folded) occurs in `bytes`, A–Z folded to a–z unless they are already.
    @inline(__always)
    private static func search(_ bytes: UnsafeBufferPointer<UInt8>, _ part: UnsafeBufferPointer<UInt8>, folded: Bool) -> Bool {
        guard part.count <= bytes.count else { return false }
        for start in 0...(bytes.count - part.count) where matches(bytes, part, at: start, folded: folded) { return true }
        return false
    }

    /// Whether `part` (folded) is at `start` of `bytes`.
    @inline(__always)
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ part: UnsafeBufferPointer<UInt8>, at start: Int, folded: Bool) -> Bool {
        for index in part.indices {
            let byte = bytes[start + index]
            if (folded ? byte : fold(byte)) != part[index] { return false }
        }
        return true
    }

    /// A–Z to a–z; every other byte as it is (in UTF-8, bytes below 0x80 are ASCII only).
    static func fold(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Which folded bytes occur in `bytes`, each as bit `byte % 64` (so some share a bit).
    static func byteMask(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 | 1 << UInt64(fold($1) & 63) }
    }
}

/// A text searched for by ``FoldedText``, prepared once: its lowercased form's characters
/// and, when it is ASCII, its bytes with A–Z folded to a–z.
struct FoldedPattern: Hashable, Sendable {
    let text: String
    fileprivate let characters: [Character]
    /// `nil` unless the text is ASCII without a carriage return or line feed: in those
    /// bytes a match cannot end or start inside a character, which `"\r\n"` is.
    fileprivate let asciiBytes: [UInt8]?
    /// ``FoldedText/byteMask(_:)`` of the text.
    fileprivate let mask: UInt64

    init(_ text: String) {
        self.text = text
        characters = Array(text.lowercased())
        let bytes = Array(text.utf8)
        asciiBytes = bytes.allSatisfy({ $0 < 0x80 && $0 != 0x0A && $0 != 0x0D }) ? bytes.map(FoldedText.fold) : nil
        mask = FoldedText.byteMask(bytes)
    }

    static func == (lhs: FoldedPattern, rhs: FoldedPattern) -> Bool { lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

extension [Character] {
    /// Whether `part` is at `start` (which leaves room for it).
    fileprivate func matches(_ part: [Character], at start: Int) -> Bool {
        for index in part.indices where self[start + index] != part[index] { return false }
        return true
    }
}
