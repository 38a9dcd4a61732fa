import TabulaCore
import Testing

/// Bugs that the fuzz targets in `Tests/Fuzz` exposed, kept as ordinary tests. The inputs
/// are also seeds of the target's corpus (`Tests/Fuzz/Corpus/<target>/regression-*`).
@Suite struct FuzzRegressionTests {
    /// A screen with a fixed row and a `forEach` row `prefix{{item.id}}suffix` over one item.
    static func screen(prefix: String, itemID: String, suffix: String = "", fixedID: String) -> [DefinitionFile] {
        let json = """
            {"id": "s", "title": "T", "state": {"items": [{"id": \(text(itemID))}], "picked": ""},
             "sections": [{"id": "main", "rows": [
               {"id": \(text(fixedID)), "kind": "basic", "title": "Fixed"},
               {"forEach": "items", "id": \(text(prefix + "{{item.id}}" + suffix)), "kind": "basic", "title": "{{item.id}}",
                "onSelect": {"set": {"picked": "{{item.id}}"}}}]}]}
            """
        return [DefinitionFile(name: "s.json", bytes: Array(json.utf8))]
    }

    static func text(_ string: String) -> String {
        JSONValue.string(string).canonicalText
    }

    // fuzz-definition-loader: `"e" + "\u{301}"` renders as `"é"`, so a fixed row `"é"` and
    // the repeated row had the same id: the screen broke its identity rules, and events on
    // the repeated row reached the fixed one. Now the item id is rejected, and so is every
    // other join that can fuse: the cases are Fixtures/invalid/fused-*, each of which
    // renders to the fixed id without the check (InvalidDefinitionTests).

    /// Ids that merely are not ASCII still work: unique on screen, and events find their row.
    @Test(arguments: ["café", "Zoë", "日本", "\u{1F469}", "\u{1F1FA}\u{1F1F8}", "\u{AC00}", "e\u{301}"])
    func nonASCIIItemIDsStillWork(itemID: String) throws {
        let catalogue = try Catalogue.load(Self.screen(prefix: "p-", itemID: itemID, fixedID: "fixed"))
        let definition = try #require(catalogue.screen(id: "s"))
        let screen = render(definition, catalogue.initialState)
        try screen.validate()
        let rowID = "p-" + itemID
        #expect(screen.path(ofRow: rowID) == RowPath(section: 0, row: 1))
        let (state, _) = try reduce(catalogue.initialState, .select(row: rowID), definition)
        #expect(state.scalar("picked") == .string(itemID))
    }
}
