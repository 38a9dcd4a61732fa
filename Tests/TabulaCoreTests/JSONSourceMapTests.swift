import TabulaCore
import Testing

@Suite struct JSONSourceMapTests {
    let text = """
        {
          "id": "a",
          "sections": [
            {"id": "s", "rows": [{"id": "r1"}, {"id": "r2", "title": "x\\"y {{é + 1}}"}]},
            {"id": "t", "rows": []}
          ]
        }
        """

    func position(_ path: String, character: Int? = nil) -> SourcePosition {
        JSONSourceMap.position(of: path, in: Array(text.utf8), character: character)
    }

    @Test func membersAndElementsAreFoundWhereTheirValuesStart() {
        #expect(position("$") == SourcePosition(line: 1, column: 1))
        #expect(position("$.id") == SourcePosition(line: 2, column: 9))
        #expect(position("$.sections[0].rows[1]") == SourcePosition(line: 4, column: 40))
        #expect(position("$.sections[1].id") == SourcePosition(line: 5, column: 12))
        #expect(position("$.sections[1].rows") == SourcePosition(line: 5, column: 25))
    }

    /// A character of a string counts escapes as the one character they stand for, and
    /// columns count characters, not bytes.
    @Test func aCharacterInAStringIsFoundPastEscapesAndWideCharacters() {
        // x"y {{é + 1}}: the 7th character is é, the 9th is +.
        #expect(position("$.sections[0].rows[1].title", character: 7) == SourcePosition(line: 4, column: 70))
        #expect(position("$.sections[0].rows[1].title", character: 9) == SourcePosition(line: 4, column: 72))
        // An escaped character past U+FFFF is a surrogate pair of escapes, and one character:
        // "\uD83D\uDE00+x" holds 😀, then +, then x.
        let text = Array(#"{"t": "\uD83D\uDE00+x"}"#.utf8)
        #expect(JSONSourceMap.position(of: "$.t", in: text, character: 2) == SourcePosition(line: 1, column: 20))
        #expect(JSONSourceMap.position(of: "$.t", in: text, character: 3) == SourcePosition(line: 1, column: 21))
    }

    /// A path that goes further than the document points at the deepest value it reaches.
    @Test func aMissingMemberOrElementPointsAtItsContainer() {
        #expect(position("$.sections[0].rows[5]") == SourcePosition(line: 4, column: 25))
        #expect(position("$.sections[0].nope") == SourcePosition(line: 4, column: 5))
        #expect(position("$.id.deeper") == SourcePosition(line: 2, column: 9))
    }

    @Test func problemsOfALoadedCatalogueCarryTheirPlaceInTheFile() {
        let file = """
            {"id": "a", "title": "T",
             "sections": [{"id": "s", "rows": [
               {"id": "r", "kind": "nope"}]}]}
            """
        let problems = located(file)
        #expect(problems.count == 1)
        #expect(problems.first?.description.hasPrefix(#"a.json:3:24: $.sections[0].rows[0].kind: unknown kind "nope";"#) == true, "\(problems)")
    }

    func located(_ file: String) -> [DefinitionProblem] {
        do {
            _ = try Catalogue.load([DefinitionFile(name: "a.json", bytes: Array(file.utf8))])
            return []
        } catch {
            return error.problems
        }
    }
}
