import PropertyBased
import TabulaSamples
import Testing

@testable import TabulaCore

/// The byte matcher of plain `pattern` rules must answer what Swift's `Regex` answers.
@Suite struct ASCIIPatternTests {
    /// Every atom the matcher takes, written as a pattern.
    static let atoms: [String] = {
        var atoms = [".", #"\d"#, #"\D"#, #"\s"#, #"\S"#, #"\w"#, #"\W"#]
        for byte in UInt8(0x20)..<0x7F {
            let character = String(UnicodeScalar(byte))
            if !"\\^$.|?*+()[]{}".contains(character) { atoms.append(character) }
            if ByteSet.word.contains(byte) == false, byte != 0x20 { atoms.append("\\" + character) }
        }
        atoms += [
            "[a-z]", "[^a-z]", "[A-Za-z0-9._%+]", #"[^@\s]"#, #"[\d]"#, #"[\s]"#, #"[\w.]"#, #"[^\w]"#, "[ -/]", #"[\]x]"#,
            #"[\-a]"#, #"[\^]"#, "[!-}]", "[^ ]",
        ]
        return atoms
    }()

    /// Each ASCII character but the carriage return, which the matcher leaves to `Regex`.
    static let characters: [String] = (UInt8(0)..<0x80).filter { $0 != 0x0D }.map { String(UnicodeScalar($0)) }

    @Test func everyAtomMatchesTheCharactersRegexMatches() throws {
        for atom in Self.atoms {
            let plain = try #require(ASCIIPattern(atom), "\(atom) is not taken")
            let regex = try Regex(atom)
            for character in Self.characters {
                let expected = (try? regex.wholeMatch(in: character)) != nil
                #expect(plain.wholeMatch(character) == expected, "\(atom) on \(character.unicodeScalars.map(\.value))")
            }
        }
    }

    @Test func randomPatternsMatchAsRegexDoes() async throws {
        let counts = ["", "", "?", "*", "+", "{2}", "{0,1}", "{1,3}", "{2,}", "{0}"]
        let alphabet = Array("ab.@ -_9Z\t\n\u{0B}\u{0C}x".utf8)
        await propertyCheck(count: 400, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SplitMix64(seed: seed)
            var pattern = ""
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let atom = ["a", "b", ".", "@", #"\."#, #"\d"#, #"\s"#, #"\S"#, #"\w"#, #"[^@\s]"#, "[a-c]", "[^a]", "x"].randomElement(using: &random) ?? "a"
                pattern += atom + (counts.randomElement(using: &random) ?? "")
            }
            guard let plain = ASCIIPattern(pattern), let regex = try? Regex(pattern) else {
                Issue.record("\(pattern) is not taken")
                return
            }
            for _ in 0..<20 {
                let length = Int.random(in: 0...8, using: &random)
                let bytes = (0..<length).map { _ in alphabet.randomElement(using: &random) ?? UInt8(ascii: "a") }
                let text = String(decoding: bytes, as: UTF8.self)
                let expected = (try? regex.wholeMatch(in: text)) != nil
                #expect(plain.wholeMatch(text) == expected, "\(pattern) on \(Array(text.utf8))")
            }
        }
    }

    @Test func patternsBeyondThePlainOnesAreLeftToTheOtherMatchers() {
        for pattern in [
            "(a|b)", "a|b", "(ab)+", "a++", #"\bx"#, "[a&&b]", "[a--b]", "[[:alpha:]]", "[:alpha:]", #"\p{L}"#, "(?i)a", #"\n"#,
            "a{,3}", "a{3,2}", "[]a]", "[a-c-e]", "[z-a]", "é", #"[\D]"#, "a{", "*a", "[a", "a^", "$a",
        ] {
            #expect(ASCIIPattern(pattern) == nil, "\(pattern)")
        }
        // What a whole match does not see: anchors at the ends, and a count's laziness.
        for pattern in ["^a", "a$", "^a+$", "a+?", "a*?", "a{2,3}?", "[a-]", "[-a]"] {
            #expect(ASCIIPattern(pattern) != nil, "\(pattern)")
        }
    }

    @Test func valuesBeyondASCIIAreLeftToTheCharacterMatcher() throws {
        let plain = try #require(ASCIIPattern(#"[^@\s]+@[^@\s]+\.[^@\s]+"#))
        #expect(plain.wholeMatch("ann@example.com") == true)
        #expect(plain.wholeMatch("ann@example") == false)
        #expect(plain.wholeMatch("ann@exämple.com") == nil)
        #expect(plain.wholeMatch("ann@example.com\r\n") == nil)
        let rule = try PatternRule(#"[^@\s]+@[^@\s]+\.[^@\s]+"#)
        #expect(!rule.backtracks)
        #expect(rule.matchesWhole("ann@exämple.com"))
        #expect(!rule.matchesWhole("ann@exämple"))
    }
}
