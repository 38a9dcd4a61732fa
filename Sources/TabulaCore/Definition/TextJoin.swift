/// Whether the pieces of a `forEach` row's id keep their characters when joined.
///
/// Such an id is `prefix + item.id + suffix`, and the identity checks and the row locator
/// reason in characters: they rely on the id being the prefix's characters, then the item
/// id's, then the suffix's. That fails when a character forms across a join: `"e" +
/// "\u{301}"` is `"é"`, the same id as a fixed row `"é"`. Some characters fuse with any
/// neighbour (a combining mark with the letter before it, a prepended mark with the one
/// after it); others only with a partner (CR and LF, Hangul jamo, flag letters, emoji
/// around a joiner, consonants around a virama). Item ids may not begin or end with the
/// first kind, and the text around `{{item.id}}` with neither, so no join can fuse.
enum TextJoin {
    /// Before a text: an ordinary letter, and the first half of each partner pair.
    private static let neighboursBefore = ["a", "\r", "\u{1100}", "\u{1161}", "\u{11A8}", "\u{1F1FA}", "\u{1F468}\u{200D}", "\u{915}\u{94D}"]
    /// After a text: an ordinary letter, and the second half of each partner pair.
    private static let neighboursAfter = ["a", "\n", "\u{1100}", "\u{1161}", "\u{11A8}", "\u{1F1FA}", "\u{1F469}", "\u{915}"]

    /// Whether an item id keeps apart from any text around `{{item.id}}` that passes
    /// ``keepsApart(prefix:suffix:)``.
    static func isSealedItemID(_ id: String) -> Bool {
        startsApart(id, after: ["a"]) && endsApart(id, before: ["a"])
    }

    /// Whether the text before and after `{{item.id}}` keeps apart from any sealed item id.
    static func keepsApart(prefix: String, suffix: String) -> Bool {
        endsApart(prefix, before: neighboursAfter) && startsApart(suffix, after: neighboursBefore)
    }

    private static func startsApart(_ text: String, after neighbours: [String]) -> Bool {
        guard let first = text.unicodeScalars.first, !isPlainASCII(first) else { return true }
        return neighbours.allSatisfy { Array($0 + text) == Array($0) + Array(text) }
    }

    private static func endsApart(_ text: String, before neighbours: [String]) -> Bool {
        guard let last = text.unicodeScalars.last, !isPlainASCII(last) else { return true }
        return neighbours.allSatisfy { Array(text + $0) == Array(text) + Array($0) }
    }

    /// Printable ASCII fuses with nothing by itself (a neighbour that fuses with it is
    /// caught on the neighbour's side); most ids take this fast path.
    private static func isPlainASCII(_ scalar: Unicode.Scalar) -> Bool {
        (0x20...0x7E).contains(scalar.value)
    }
}
