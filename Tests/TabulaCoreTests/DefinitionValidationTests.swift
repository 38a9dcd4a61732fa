import TabulaCore
import Testing

/// Loads definitions given as file name → JSON text and returns their problems, without
/// their places in the text (JSONSourceMapTests checks those).
func definitionProblems(_ files: [String: String]) -> [DefinitionProblem] {
    definitionProblems(files.map { DefinitionFile(name: $0.key, bytes: Array($0.value.utf8)) })
}

/// Loads definition files and returns their problems; `located: false` leaves out their
/// places in the text, for tests of what a problem says (JSONSourceMapTests and the cases of
/// InvalidDefinitionTests check the places).
func definitionProblems(_ files: [DefinitionFile], strings: StringSources? = nil, located: Bool = false) -> [DefinitionProblem] {
    do {
        _ = try Catalogue.load(files, strings: strings)
        return []
    } catch {
        return error.problems.map { problem in
            var unplaced = problem
            if !located { unplaced.location = nil }
            return unplaced
        }
    }
}

/// A screen definition with the given state and rows in one section "main".
func definition(id: String = "s", state: String = "{}", rows: String, extra: String = "") -> String {
    #"{"id": "\#(id)", "title": "T", "state": \#(state), \#(extra) "sections": [{"id": "main", "rows": [\#(rows)]}]}"#
}

/// What definitions may do; what they may not is in `Fixtures/invalid/` (InvalidDefinitionTests).
@Suite struct DefinitionValidationTests {
    @Test func sharedStateThatAgreesIsFine() {
        #expect(
            definitionProblems([
                "a.json": definition(id: "a", state: #"{"wifi": true}"#, rows: ""),
                "b.json": definition(id: "b", state: #"{"wifi": true}"#, rows: ""),
            ]).isEmpty)
    }

    /// State is shared by the catalogue's screens: one may read and set a key that only
    /// another declares.
    @Test func aScreenMayUseStateAnotherScreenDeclares() throws {
        let files = [
            "a.json": definition(
                id: "a", state: #"{"wifi": true}"#, rows: #"{"id": "w", "kind": "titleSwitch", "title": "W", "isOn": "wifi", "onSwitch": {"set": "wifi"}}"#),
            "b.json": definition(id: "b", rows: #"{"id": "x", "kind": "basic", "title": "{{wifi ? 'on' : 'off'}}", "onSelect": {"toggle": "wifi"}}"#),
        ]
        let catalogue = try Catalogue.load(files.map { DefinitionFile(name: $0.key, bytes: Array($0.value.utf8)) })
        let screen = try #require(catalogue.screen(id: "b"))
        #expect(render(screen, catalogue.initialState).sections[0].rows[0].content == .basic(title: "on"))
        let (state, _) = try reduce(catalogue.initialState, .select(row: "x"), screen)
        #expect(state.scalar("wifi") == .bool(false))
        #expect(render(screen, state).sections[0].rows[0].content == .basic(title: "off"))
    }

    /// A bool or number value may be written as one {{ expression }}, the way `set` values
    /// of string keys are written.
    @Test func oneBracedExpressionServesABoolOrNumberValue() throws {
        let rows = #"""
            {"id": "w", "kind": "titleSwitch", "title": "W", "isOn": " {{ wifi }} ", "onSwitch": {"set": "wifi"}},
            {"id": "b", "kind": "basic", "title": "B", "visibleWhen": "'{{' != ''"},
            {"id": "t", "kind": "basic", "title": "{{taps}}", "onSelect": {"set": {"taps": "{{taps == 0 ? 1 : 2}}", "wifi": "{{!wifi}}"}}}
            """#
        let files = ["a.json": definition(id: "a", state: #"{"wifi": true, "taps": 0}"#, rows: rows)]
        let catalogue = try Catalogue.load(files.map { DefinitionFile(name: $0.key, bytes: Array($0.value.utf8)) })
        let screen = try #require(catalogue.screen(id: "a"))
        #expect(render(screen, catalogue.initialState).sections[0].rows[0].content == .titleSwitch(title: "W", isOn: true))
        let (state, _) = try reduce(catalogue.initialState, .select(row: "t"), screen)
        #expect(state.scalar("taps") == .number(1))
        #expect(state.scalar("wifi") == .bool(false))
        #expect(render(screen, state).sections[0].rows[0].content == .titleSwitch(title: "W", isOn: false))
    }

    @Test func customKindsAreDeclared() {
        let kinds = #""kinds": {"gauge": {"label": "string", "level": "number"}},"#
        #expect(definitionProblems(["a.json": definition(rows: #"{"id": "r", "kind": "gauge", "label": "Battery", "level": 0.5}"#, extra: kinds)]).isEmpty)
    }
}
