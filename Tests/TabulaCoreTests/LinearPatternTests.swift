import PropertyBased
import TabulaSamples
import Testing

@testable import TabulaCore

/// The character matcher of `pattern` rules must answer what Swift's `Regex` answers, on
/// characters of every kind, in time linear in the value.
@Suite struct LinearPatternTests {
    static let atoms: [String] = [
        ".", #"\d"#, #"\D"#, #"\s"#, #"\S"#, #"\w"#, #"\W"#, "a", "_", " ", "@", #"\."#, #"\-"#, "[a-z]", "[^a-z]", "[A-Za-z0-9._%+]",
        #"[^@\s]"#, #"[\d]"#, #"[\s]"#, #"[\w.]"#, #"[^\w]"#, #"[^\d]"#, #"[^\s_]"#, "[ -/]", "[!-}]", "[^!-}]", "[^ ]", "[_]",
        "[a-]", "[-a]", "[^-]", "[-]", "[.-]", "[a-c-]", "[A-Za-z0-9._%+-]",
    ]

    /// Characters of every kind: each scalar of the first planes' scripts, symbols and
    /// spaces (a sample beyond), and clusters of several scalars.
    static let characters: [String] = {
        var scalars: [UInt32] = Array(0x00...0x0FFF)
        scalars += Array(0x1000...0x2FFF).filter { $0 % 7 == 0 }
        scalars += [0x1680, 0x180E, 0x2000, 0x2007, 0x200A, 0x200B, 0x200D, 0x2028, 0x2029, 0x202F, 0x203F, 0x205F, 0x2160, 0x2188]
        scalars += [0x3000, 0x3007, 0x4E2D, 0xAC00, 0xFEFF, 0xFF10, 0xFF3F, 0xFF41, 0x10140, 0x1D7CE, 0x1F600, 0x1F1EB, 0xE0041]
        scalars += Array(0x16EE...0x16F0) + Array(0x0660...0x0669)
        var characters = scalars.compactMap(Unicode.Scalar.init).map { String($0) }
        characters += [
            "\r\n", "e\u{301}", "a\u{301}\u{302}", "A\u{308}", "1\u{20E3}", "1\u{301}", " \u{301}", "_\u{301}", "@\u{301}", ".\u{301}",
            "\u{663}\u{301}", "\t\u{301}", "\u{A0}\u{301}", "👍🏽", "🇫🇷", "\u{1100}\u{1161}\u{11A8}", "a\u{200D}", "\u{301}\u{302}",
            "z\u{FE0F}", "\u{2160}\u{301}", "\u{3000}\u{301}",
        ]
        return characters
    }()

    @Test func everyAtomMatchesTheCharactersRegexMatches() throws {
        for atom in Self.atoms {
            let node = try #require(PatternNode.parse(atom), "\(atom) is not taken")
            let linear = try #require(LinearPattern(node))
            let regex = try Regex(atom)
            for character in Self.characters {
                let expected = (try? regex.wholeMatch(in: character)) != nil
                #expect(linear.wholeMatch(character) == expected, "\(atom) on \(character.unicodeScalars.map(\.value))")
            }
        }
    }

    /// Random patterns, the same 400 in every run: the oracle, Swift's `Regex`, backtracks
    /// without bound on some nested quantified groups (a run under ThreadSanitizer stayed in
    /// one match for over twenty minutes), and a test cannot stop a match once it started.
    /// These seeds' patterns are known to finish; new seeds are for a run by hand.
    @Test func randomPatternsMatchAsRegexDoes() throws {
        let atoms = ["a", "b", ".", "@", #"\."#, #"\d"#, #"\s"#, #"\S"#, #"\w"#, #"\W"#, #"[^@\s]"#, "[a-c]", "[^a]", "[.-]", "é"]
        let counts = ["", "", "", "?", "*", "+", "{2}", "{0,1}", "{1,3}", "{2,}", "{0}", "*?", "+?"]
        let alphabet: [String] = ["a", "b", "@", ".", " ", "1", "é", "e\u{301}", "٣", "\r\n", "\n", "\u{A0}", "_", "中", "👍🏽"]
        for seed in UInt64(1)...400 {
            var random = SplitMix64(seed: seed)
            func pattern(depth: Int) -> String {
                var alternatives: [String] = []
                for _ in 0..<(Int.random(in: 0..<4, using: &random) == 0 ? 2 : 1) {
                    var sequence = ""
                    for _ in 0..<Int.random(in: 0...3, using: &random) {
                        let group = depth < 2 && Int.random(in: 0..<4, using: &random) == 0
                        var item = group ? "(" + pattern(depth: depth + 1) + ")" : atoms.randomElement(using: &random) ?? "a"
                        if item == "é" { item = "a" }  // not ASCII: the subset leaves it to `Regex`
                        sequence += item + (counts.randomElement(using: &random) ?? "")
                    }
                    alternatives.append(sequence)
                }
                return alternatives.joined(separator: "|")
            }
            var source = pattern(depth: 0)
            if Int.random(in: 0..<4, using: &random) == 0 { source = "^" + source }
            if Int.random(in: 0..<4, using: &random) == 0 { source += "$" }
            guard let regex = try? Regex(source) else { continue }
            guard let node = PatternNode.parse(source), let linear = LinearPattern(node) else {
                Issue.record("\(source) is not taken")
                continue
            }
            let rule = try? PatternRule(source)
            for _ in 0..<20 {
                let length = Int.random(in: 0...7, using: &random)
                let text = (0..<length).map { _ in alphabet.randomElement(using: &random) ?? "a" }.joined()
                let expected = (try? regex.wholeMatch(in: text)) != nil
                #expect(linear.wholeMatch(text) == expected, "\(source) on \(text.unicodeScalars.map(\.value))")
                #expect(rule?.matchesWhole(text) == expected, "\(source) on \(text.unicodeScalars.map(\.value)), the rule")
            }
        }
    }

    @Test func patternsOutsideTheSubsetAreLeftToRegex() throws {
        for pattern in [
            #"(\w)\1"#, "(?=a)a", "(?!b)a", "(?<name>a)", "(?i)a", #"\bx"#, "a^b", "a$b", "(^a)", "(a$)", "a++", "(?>a)", #"\p{L}"#,
            "[a&&b]", "[:alpha:]", "[[:alpha:]]", "é", #"\n"#, #"\x41"#, "a{,3}", String(repeating: "(", count: 40) + "a" + String(repeating: ")", count: 40),
            #"\d{1000}"#, #"(\d{1,40}){1,40}"#, "[a-c-e]", "<{1}>", "x<{3}>y", String(repeating: ".*", count: 600),
            // Compiles to nothing however often: refused by the work it takes, not its size.
            "(?:(?:(?:){9999}){9999}){9999}",
        ] {
            #expect((try? PatternRule(pattern))?.backtracks != false, "\(pattern)")
        }
        for pattern in [
            "^a|b$", "(a|b)+", "(?:ab)*c", "", "()", "a||b", "(a*)*", #"^[^@\s]+@[^@\s]+\.[^@\s]+$"#, #"(\w+\s?)+"#,
            #"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$"#,
        ] {
            #expect(try PatternRule(pattern).backtracks == false, "\(pattern)")
        }
    }

    /// A pattern left to `Regex` loads with a warning that says why it may be slow and what
    /// keeps a pattern linear; one in the subset loads without.
    @Test func aPatternLeftToRegexIsAWarning() throws {
        let row = { (pattern: String) in
            #"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "onEdit": {"set": "name"}, "validate": [{"pattern": "\#(pattern)", "message": "M"}]}"#
        }
        let load = { (pattern: String) in
            try Catalogue.load([DefinitionFile(name: "a.json", bytes: Array(definition(state: #"{"name": ""}"#, rows: row(pattern)).utf8))])
        }
        let warnings = try load(#"(\\w)\\1"#).warnings
        #expect(warnings.count == 1 && warnings.first?.severity == .warning && warnings.first?.location != nil)
        #expect(warnings.first?.description.contains("validate[0].pattern: warning: this pattern is matched by Swift's Regex, which backtracks") == true)
        #expect(try load(#"(\\w+\\s?)+"#).warnings.isEmpty)
    }

    /// What made `Regex` take seconds to minutes on a short request, each now a pass over
    /// the value: nested counts on a line of one letter, and an e-mail pattern on a value
    /// with characters beyond ASCII (one of them thousands of scalars long). (The limit is
    /// for the backtracking, which would take hours; a debug build under ThreadSanitizer on a
    /// loaded machine makes the passes themselves slow.)
    @Test(.timeLimit(.minutes(5))) func valuesThatMadeRegexBacktrackArePassedOverOnce() throws {
        let nested = try PatternRule("(a+)+b")
        #expect(!nested.backtracks && !nested.matchesWhole(String(repeating: "a", count: 20_000) + "!"))
        #expect(nested.matchesWhole(String(repeating: "a", count: 20_000) + "b"))
        let words = try PatternRule(#"(\w+\s?)+"#)
        #expect(!words.matchesWhole(String(repeating: "a", count: 5_000) + "!") && words.matchesWhole("two words"))
        let email = try PatternRule(#"[^@\s]+@[^@\s]+\.[^@\s]+"#)
        #expect(!email.matchesWhole("é@" + String(repeating: ".", count: 20_000) + "@"))
        #expect(!email.matchesWhole("é@" + String(repeating: ".", count: 250) + String(repeating: "\u{301}", count: 12_000) + "@"))
        #expect(email.matchesWhole("zoë@exämple.com"))
    }
}
