/// Text compared the way a search field compares it: both sides in their `lowercased()`
/// form, matched character by character as Swift compares characters. A search over a long
/// list asks this of every item, so the text searched for can be prepared once
/// (``FoldedPattern``), and most texts are settled on their bytes, A–Z folded, without
/// building the lowercased strings; the others are lowercased and compared as characters.
///
/// An ASCII pattern is looked for in the bytes of any text. In a text that is ASCII too, the
/// bytes settle it. In another, a character equal to an ASCII one in its lowercased form is
/// that ASCII scalar, which came from an ASCII scalar of the text, unless the text holds one
/// of the scalars that lowercase or normalize into ASCII alone (``ByteClass/mayFoldIntoASCII``):
/// so bytes that lack the pattern settle that the characters lack it; bytes that hold it
/// leave it to the characters.
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

    /// `contains` (an empty `part` is in everything) or `startsWith` of `text` and `part`.
    static func search(_ function: ExpressionFunction, _ text: String, _ part: FoldedPattern) -> Bool {
        let settled = text.utf8.withContiguousStorageIfAvailable { bytes in
            Self.settled(function, bytes: bytes, ByteClass(bytes), folded: false, mask: ~0, part)
        }
        if let found = settled ?? nil { return found }
        return characters(function, text, part.characters)
    }

    /// The same search with a text searched for once: its bytes are tried without preparing
    /// it (no allocation when they settle it).
    static func search(_ function: ExpressionFunction, _ text: String, _ part: String) -> Bool {
        let settled = text.utf8.withContiguousStorageIfAvailable { bytes in
            part.utf8.withContiguousStorageIfAvailable { partBytes in
                FoldedPattern.isSettledOnBytes(partBytes)
                    ? withUnsafeTemporaryAllocation(of: UInt8.self, capacity: partBytes.count) { folded in
                        for index in partBytes.indices { folded[index] = fold(partBytes[index]) }
                        return settle(
                            function, bytes, ByteClass(bytes), folded: false, mask: ~0, UnsafeBufferPointer(folded), byteMask(partBytes))
                    } : nil
            } ?? nil
        }
        if let found = settled ?? nil { return found }
        return characters(function, text, Array(part.lowercased()))
    }

    /// What the bytes of a text (A–Z folded already when `folded`) of the class `byteClass`
    /// settle of a search for `part`; `nil` when the characters must
    /// (``characters(_:_:_:)``). `mask` is the text's ``byteMask(_:)`` when it is known: a
    /// text that lacks a byte of the pattern cannot hold it, and most texts of a long list
    /// are passed over without reading their bytes.
    static func settled(
        _ function: ExpressionFunction, bytes: UnsafeBufferPointer<UInt8>, _ byteClass: ByteClass, folded: Bool, mask: UInt64,
        _ part: FoldedPattern
    ) -> Bool? {
        part.asciiBytes.flatMap { partBytes in
            partBytes.withUnsafeBufferPointer { settle(function, bytes, byteClass, folded: folded, mask: mask, $0, part.mask) }
        }
    }

    /// The rule itself: `contains` or `startsWith` of the lowercased text's characters and
    /// `part`'s (the lowercased form of the text searched for).
    static func characters(_ function: ExpressionFunction, _ text: String, _ part: [Character]) -> Bool {
        let characters = Array(text.lowercased())
        guard part.count <= characters.count else { return false }
        if function == .startsWith { return characters.matches(part, at: 0) }
        if part.isEmpty { return true }
        guard part.count > shortPart else {
            for start in 0...(characters.count - part.count) where characters.matches(part, at: start) { return true }
            return false
        }
        return occurs(part.count, { part[$0] }, in: characters.count, { characters[$0] })
    }

    /// The longest text searched for by trying each place in turn, at most this many
    /// comparisons a place; a longer one is searched for in linear time (``occurs``), so
    /// that no value a user typed costs a search the product of two lengths.
    static let shortPart = 16

    /// Whether the `partCount` elements `part(i)` occur in the `count` elements `element(i)`,
    /// in time linear in both (Knuth, Morris and Pratt: after a mismatch, the search goes on
    /// from the longest start of `part` that the elements just matched end with).
    private static func occurs<Element: Equatable>(
        _ partCount: Int, _ part: (Int) -> Element, in count: Int, _ element: (Int) -> Element
    ) -> Bool {
        var longest = [Int](repeating: 0, count: partCount)
        var matched = 0
        for index in 1..<partCount {
            while matched > 0 && part(index) != part(matched) { matched = longest[matched - 1] }
            if part(index) == part(matched) { matched += 1 }
            longest[index] = matched
        }
        matched = 0
        for index in 0..<count {
            let next = element(index)
            while matched > 0 && next != part(matched) { matched = longest[matched - 1] }
            if next == part(matched) { matched += 1 }
            if matched == partCount { return true }
        }
        return false
    }

    /// What the bytes settle, for an ASCII pattern's folded bytes `part` (of mask
    /// `partMask`): false when they lack it (unless a scalar may fold into ASCII), true when
    /// an ASCII text holds it, `nil` otherwise.
    private static func settle(
        _ function: ExpressionFunction, _ bytes: UnsafeBufferPointer<UInt8>, _ byteClass: ByteClass, folded: Bool, mask: UInt64,
        _ part: UnsafeBufferPointer<UInt8>, _ partMask: UInt64
    ) -> Bool? {
        guard byteClass != .mayFoldIntoASCII else { return nil }
        if partMask & ~mask != 0 { return false }
        let found =
            function == .startsWith
            ? bytes.count >= part.count && matches(bytes, part, at: 0, folded: folded) : search(bytes, part, folded: folded)
        if !found { return false }
        return byteClass == .ascii ? true : nil
    }

    /// Whether `part` (folded) occurs in `bytes`, A–Z folded to a–z unless they are already.
    @inline(__always)
    private static func search(_ bytes: UnsafeBufferPointer<UInt8>, _ part: UnsafeBufferPointer<UInt8>, folded: Bool) -> Bool {
        guard part.count <= bytes.count else { return false }
        guard part.count > shortPart else {
            for start in 0...(bytes.count - part.count) where matches(bytes, part, at: start, folded: folded) { return true }
            return false
        }
        return occurs(part.count, { part[$0] }, in: bytes.count, { folded ? bytes[$0] : fold(bytes[$0]) })
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
/// and, when its bytes can settle a search, those bytes with A–Z folded to a–z.
struct FoldedPattern: Hashable, Sendable {
    let text: String
    let characters: [Character]
    let asciiBytes: [UInt8]?
    /// ``FoldedText/byteMask(_:)`` of the text.
    let mask: UInt64

    init(_ text: String) {
        self.text = text
        characters = Array(text.lowercased())
        let bytes = Array(text.utf8)
        asciiBytes = bytes.withUnsafeBufferPointer(Self.isSettledOnBytes) ? bytes.map(FoldedText.fold) : nil
        mask = FoldedText.byteMask(bytes)
    }

    /// Whether a pattern's bytes can settle searches: it is ASCII without a carriage return
    /// or line feed, so a match in a text's bytes cannot start or end inside a character
    /// (`"\r\n"` is one).
    static func isSettledOnBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 < 0x80 && $0 != 0x0A && $0 != 0x0D }
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
