import TabulaCore
import TabulaSamples
import Testing

/// `contains` and `startsWith` compare the `lowercased()` forms character by character,
/// whichever way they are evaluated: on one item, bound to the state for a whole list, or
/// over a list's columns. Texts mix the characters that byte comparisons could get wrong.
@Suite struct TextSearchTests {
    static let schema = RecordSchema(fields: ["name": .string])
    static let scope = ExpressionScope(state: ["query": .scalar(.string), "names": .list(schema)], item: ("names", schema))
    /// Pieces of texts: ASCII letters of both cases, characters that lowercase or normalize
    /// into ASCII (Kelvin sign, Greek question mark, varia, dotted capital I), combining
    /// marks that join the letter before them, `"\r\n"` (one character), and others.
    static let pieces = [
        "a", "B", "k", "K", "i", "I", "e", "E", "é", "E\u{301}", "\u{301}", "\u{212A}", "\u{037E}", ";", "\u{1FEF}", "`", "\u{0130}",
        "ß", "SS", "Σ", "\r", "\n", "\r\n", " ", "x", "\u{0600}", "\u{1F1EB}", "🇫🇷", "ﬁ", "Å", "\u{212B}",
    ]

    static func text(_ random: inout SplitMix64, pieces count: Int) -> String {
        (0..<Int.random(in: 0...count, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
    }

    /// The rule as the language states it.
    static func expected(_ function: String, _ text: String, _ part: String) -> Bool {
        let (characters, needle) = (Array(text.lowercased()), Array(part.lowercased()))
        if function == "startsWith" { return characters.starts(with: needle) }
        if needle.isEmpty { return true }
        guard needle.count <= characters.count else { return false }
        return (0...(characters.count - needle.count)).contains { Array(characters[$0..<($0 + needle.count)]) == needle }
    }

    struct EveryColumn: ItemColumnSource {
        func column(_ field: String, _ type: ScalarType, ofList list: String, _ records: [Record]) -> ItemColumn? {
            ItemColumn(field, type, of: records)
        }
    }

    @Test(arguments: ["contains", "startsWith"])
    func matchesTheCharacterRule(function: String) throws {
        var random = SplitMix64(seed: 53)
        let texts = (0..<300).map { _ in Self.text(&random, pieces: 6) }
        let records = texts.enumerated().map { Record(id: "n\($0.offset)", fields: ["name": .string($0.element)]) }
        let one = try Expression.compile("\(function)(item.name, query)", scope: Self.scope)
        let counted = try Expression.compile("count(names, \(function)(item.name, query))", scope: Self.scope)
        for _ in 0..<60 {
            let query = Self.text(&random, pieces: 3)
            let state = SessionState(values: ["query": .scalar(.string(query)), "names": .list(records)])
            var context = EvaluationContext(state: state)
            var matches = 0
            for (index, text) in texts.enumerated() {
                context.item = records[index]
                let expected = Self.expected(function, text, query)
                #expect(one.evaluate(context) == .bool(expected), "\(function)(\(text.debugDescription), \(query.debugDescription))")
                if expected { matches += 1 }
            }
            context.item = nil
            #expect(counted.evaluate(context) == .number(Double(matches)), "item by item, query \(query.debugDescription)")
            let fromColumns = ItemColumns.$source.withValue(EveryColumn()) { counted.evaluate(context) }
            #expect(fromColumns == .number(Double(matches)), "from columns, query \(query.debugDescription)")
        }
    }

    /// A text searched for that is longer than ``FoldedText/shortPart`` characters is found
    /// in linear time, by the same rule: texts of few letters, so that a search meets many
    /// near matches, in ASCII (the bytes settle it) and not (the characters do).
    @Test(arguments: [["a", "b", "A", "B"], ["a", "b", "é", "E\u{301}", "\u{212A}", "k", "\r\n"]])
    func longSearchesMatchTheCharacterRule(alphabet: [String]) throws {
        var random = SplitMix64(seed: 54)
        let one = try Expression.compile("contains(item.name, query)", scope: Self.scope)
        for round in 0..<400 {
            let pieces = (0..<Int.random(in: 17...60, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "" }
            let text = pieces.joined()
            let length = Int.random(in: 17...min(30, pieces.count), using: &random)
            let query: String
            if round % 2 == 0 {
                let start = Int.random(in: 0...(pieces.count - length), using: &random)
                query = pieces[start..<(start + length)].joined()
            } else {
                query = (0..<length).map { _ in alphabet.randomElement(using: &random) ?? "" }.joined()
            }
            var context = EvaluationContext(state: SessionState(values: ["query": .scalar(.string(query))]))
            context.item = Record(id: "n", fields: ["name": .string(text)])
            let expected = Self.expected("contains", text, query)
            #expect(one.evaluate(context) == .bool(expected), "contains(\(text.debugDescription), \(query.debugDescription))")
        }
    }
}
