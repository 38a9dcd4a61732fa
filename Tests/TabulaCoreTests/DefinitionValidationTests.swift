import TabulaCore
import Testing

/// Loads definitions given as file name → JSON text and returns their problems, without
/// their places in the text (JSONSourceMapTests checks those).
func definitionProblems(_ files: [String: String]) -> [DefinitionProblem] {
    do {
        _ = try Catalogue.load(files.map { DefinitionFile(name: $0.key, bytes: Array($0.value.utf8)) })
        return []
    } catch {
        return error.problems.map { problem in
            var unplaced = problem
            unplaced.location = nil
            return unplaced
        }
    }
}

/// A screen definition with the given state and rows in one section "main".
func definition(id: String = "s", state: String = "{}", rows: String, extra: String = "") -> String {
    #"{"id": "\#(id)", "title": "T", "state": \#(state), \#(extra) "sections": [{"id": "main", "rows": [\#(rows)]}]}"#
}

@Suite struct DefinitionValidationTests {
    func onlyProblem(_ files: [String: String]) -> DefinitionProblem? {
        let problems = definitionProblems(files)
        #expect(problems.count == 1, "\(problems)")
        return problems.first
    }

    @Test func invalidJSON() {
        let problem = onlyProblem(["a.json": #"{"id": "a", "title": }"#])
        #expect(problem?.kind == .invalidJSON)
        #expect(problem?.description == "a.json: $: not valid JSON: unexpected character '}' at line 1, column 22")
    }

    @Test func missingAndUnknownFields() {
        let problems = definitionProblems(["a.json": #"{"id": "a", "titel": "T", "sections": []}"#])
        #expect(
            problems.map(\.description) == [
                "a.json: $: missing required field \"title\"",
                "a.json: $: unknown field \"titel\"; remove it or check its spelling",
            ])
        #expect(problems.allSatisfy { $0.kind == .structure })
    }

    @Test func wrongJSONType() {
        let problem = onlyProblem(["a.json": definition(rows: #"{"id": "r", "kind": "basic", "title": "x", "accessory": 3}"#)])
        #expect(problem?.kind == .structure)
        #expect(problem?.path == "$.sections[0].rows[0].accessory")
        #expect(problem?.message == "3 is not allowed here; use one of \"none\", \"disclosureIndicator\", \"detailButton\", \"checkmark\"")
    }

    @Test func duplicateScreenID() {
        let problem = onlyProblem(["a.json": definition(id: "same", rows: ""), "b.json": definition(id: "same", rows: "")])
        #expect(problem?.kind == .duplicateScreenID)
        #expect(problem?.description == "b.json: $.id: screen id \"same\" is already used by a.json")
    }

    @Test func duplicateSectionID() {
        let problem = onlyProblem(["a.json": #"{"id": "a", "title": "T", "sections": [{"id": "x", "rows": []}, {"id": "x", "rows": []}]}"#])
        #expect(problem?.kind == .duplicateSectionID)
        #expect(problem?.path == "$.sections[1].id")
        #expect(problem?.message == "section id \"x\" is already used by $.sections[0]; section ids must be unique")
    }

    @Test func duplicateFixedRowIDAcrossSections() {
        let problem = onlyProblem([
            "a.json":
                #"{"id": "a", "title": "T", "sections": [{"id": "x", "rows": [{"id": "r", "kind": "empty"}]}, {"id": "y", "rows": [{"id": "r", "kind": "empty"}]}]}"#
        ])
        #expect(problem?.kind == .duplicateRowID)
        #expect(problem?.path == "$.sections[1].rows[0].id")
        #expect(problem?.message == "row id \"r\" is already used by $.sections[0].rows[0].id; row ids must be unique across the screen")
    }

    static let lists = #"{"a": [{"id": "1", "name": "One"}], "b": [{"id": "2", "name": "Two"}]}"#

    @Test func forEachIDWithoutItemID() {
        let problem = onlyProblem(["a.json": definition(state: Self.lists, rows: #"{"forEach": "a", "id": "row-{{item.name}}", "kind": "empty"}"#)])
        #expect(problem?.kind == .duplicateRowID)
        #expect(problem?.path == "$.sections[0].rows[0].id")
        #expect(problem?.message.hasPrefix("a forEach row's id must be fixed text around one {{item.id}} and no other {{ }} part") == true)
        // {{item.id}} with another part: the message names the other part as the problem.
        let mixed = onlyProblem(["a.json": definition(state: Self.lists, rows: #"{"forEach": "a", "id": "x-{{item.id}}-{{item.name}}", "kind": "empty"}"#)])
        #expect(mixed?.message.hasPrefix("a forEach row's id must be fixed text around one {{item.id}} and no other {{ }} part") == true)
    }

    @Test func forEachIDsThatCanCollide() {
        let problems = definitionProblems([
            "a.json": definition(
                state: Self.lists,
                rows: """
                    {"forEach": "a", "id": "x-{{item.id}}", "kind": "empty"},
                    {"forEach": "b", "id": "x-{{item.id}}", "kind": "empty"},
                    {"id": "x-7", "kind": "empty"},
                    {"forEach": "a", "id": "y-{{item.id}}", "kind": "empty"},
                    {"forEach": "b", "id": "z-{{item.id}}-b", "kind": "empty"}
                    """)
        ])
        #expect(problems.map(\.kind) == [.duplicateRowID, .duplicateRowID])
        #expect(problems.map(\.path) == ["$.sections[0].rows[1].id", "$.sections[0].rows[2].id"])
        #expect(
            problems.first?.message
                == "ids \"x-{{item.id}}\" (over b) can be the same as ids \"x-{{item.id}}\" (over a) of $.sections[0].rows[0].id; make the text around {{item.id}} differ"
        )
    }

    @Test func unknownStateKey() {
        let problem = onlyProblem([
            "a.json": definition(state: #"{"wifi": true}"#, rows: #"{"id": "r", "kind": "basic", "title": "x", "visibleWhen": "wifi && bluetoth"}"#)
        ])
        #expect(problem?.kind == .unknownStateKey)
        #expect(problem?.description == "a.json: $.sections[0].rows[0].visibleWhen: column 9: unknown state key 'bluetoth'; declared keys: wifi")
    }

    @Test func unknownStateKeyInAnAction() {
        let problem = onlyProblem(["a.json": definition(rows: #"{"id": "r", "kind": "basic", "title": "x", "onSelect": {"toggle": "wifi"}}"#)])
        #expect(problem?.kind == .unknownStateKey)
        #expect(problem?.description == "a.json: $.sections[0].rows[0].onSelect.toggle: unknown state key \"wifi\"; declare it under \"state\"")
    }

    @Test func typeMismatch() {
        let problem = onlyProblem([
            "a.json": definition(state: #"{"appearance": "dark"}"#, rows: #"{"id": "r", "kind": "checkmark", "title": "x", "isChecked": "appearance"}"#)
        ])
        #expect(problem?.kind == .typeMismatch)
        #expect(problem?.description == "a.json: $.sections[0].rows[0].isChecked: column 1: expected a bool expression, but \"appearance\" is a string")
    }

    @Test func typeMismatchInSet() {
        let problem = onlyProblem([
            "a.json": definition(state: #"{"volume": 3}"#, rows: #"{"id": "r", "kind": "basic", "title": "x", "onSelect": {"set": {"volume": "loud"}}}"#)
        ])
        #expect(problem?.kind == .unknownStateKey)
        #expect(problem?.path == "$.sections[0].rows[0].onSelect.set.volume")
        let literal = onlyProblem([
            "a.json": definition(state: #"{"volume": 3}"#, rows: #"{"id": "r", "kind": "basic", "title": "x", "onSelect": {"set": {"volume": true}}}"#)
        ])
        #expect(literal?.kind == .typeMismatch)
        #expect(literal?.message == "expected a number or an expression string, found boolean")
    }

    @Test func expressionSyntaxWithColumn() {
        let problem = onlyProblem([
            "a.json": definition(state: #"{"secure": true}"#, rows: #"{"id": "r", "kind": "basic", "title": "{{secure ? 'Secured' 'Open'}}"}"#)
        ])
        #expect(problem?.kind == .expressionSyntax)
        #expect(problem?.column == 22)
        #expect(problem?.description == "a.json: $.sections[0].rows[0].title: column 22: expected ':' in conditional expression, found string 'Open'")
    }

    @Test func navigateToUnknownScreen() {
        let problem = onlyProblem(["a.json": definition(rows: #"{"id": "r", "kind": "basic", "title": "x", "onSelect": {"navigate": "nowhere"}}"#)])
        #expect(problem?.kind == .unknownScreen)
        #expect(problem?.description == "a.json: $.sections[0].rows[0].onSelect.navigate: no screen has id \"nowhere\"; known screens: s")
    }

    @Test func onSwitchOnNonBoolKey() {
        let problem = onlyProblem([
            "a.json": definition(
                state: #"{"name": "x"}"#, rows: #"{"id": "r", "kind": "titleSwitch", "title": "x", "isOn": false, "onSwitch": {"set": "name"}}"#)
        ])
        #expect(problem?.kind == .switchOnNonBool)
        #expect(problem?.description == "a.json: $.sections[0].rows[0].onSwitch.set: \"name\" is a string, but a switch stores a bool")
    }

    @Test func removeOutsideForEach() {
        let problem = onlyProblem(["a.json": definition(state: Self.lists, rows: #"{"id": "r", "kind": "basic", "title": "x", "onDelete": {"remove": "a"}}"#)])
        #expect(problem?.kind == .removeOutsideForEach)
        #expect(
            problem?.description
                == "a.json: $.sections[0].rows[0].onDelete.remove: \"remove\" takes the row's item out of its list, so it only works in a row with \"forEach\"")
    }

    @Test func unknownKind() {
        let problem = onlyProblem(["a.json": definition(rows: #"{"id": "r", "kind": "gauge"}"#)])
        #expect(problem?.kind == .unknownKind)
        #expect(problem?.path == "$.sections[0].rows[0].kind")
    }

    @Test func invalidStateDefault() {
        let problem = onlyProblem(["a.json": definition(state: #"{"items": [{"id": "1"}, {"name": "no id"}]}"#, rows: "")])
        #expect(problem?.kind == .invalidStateDefault)
        #expect(
            problem?.description
                == "a.json: $.state.items[1]: every item needs a non-empty string \"id\"; rows repeated over the list take their identity from it")
    }

    @Test func conflictingStateDeclarations() {
        let problem = onlyProblem([
            "a.json": definition(id: "a", state: #"{"wifi": true}"#, rows: ""),
            "b.json": definition(id: "b", state: #"{"wifi": false}"#, rows: ""),
        ])
        #expect(problem?.kind == .conflictingDeclaration)
        #expect(
            problem?.description
                == "b.json: $.state.wifi: state key \"wifi\" is declared by a.json as bool with default true; screens that share a key must declare the same type and default"
        )
    }

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

        let problem = onlyProblem([
            "a.json": definition(state: #"{"wifi": true}"#, rows: #"{"id": "r", "kind": "basic", "title": "x", "visibleWhen": "on: {{wifi}}"}"#)
        ])
        #expect(problem?.kind == .typeMismatch)
        #expect(
            problem?.description
                == #"a.json: $.sections[0].rows[0].visibleWhen: a bool field takes an expression such as "wifi", or one {{ expression }} with no text around it"#
        )
    }

    @Test func aKeyNoScreenDeclaresIsUnknownWithEveryScreensKeysListed() {
        let problem = onlyProblem([
            "a.json": definition(id: "a", state: #"{"wifi": true}"#, rows: ""),
            "b.json": definition(id: "b", state: #"{"dark": false}"#, rows: #"{"id": "x", "kind": "basic", "title": "{{bluetooth}}"}"#),
        ])
        #expect(problem?.description == "b.json: $.sections[0].rows[0].title: column 3: unknown state key 'bluetooth'; declared keys: dark, wifi")
    }

    @Test func reportsEveryProblemAtOnce() {
        let problems = definitionProblems([
            "a.json": definition(
                state: #"{"flag": true}"#,
                rows: """
                    {"id": "r1", "kind": "basic", "title": "{{nope}}"},
                    {"id": "r2", "kind": "checkmark", "title": "x", "isChecked": 1},
                    {"id": "r2", "kind": "basic", "title": "x", "onSelect": {"navigate": "missing"}}
                    """),
            "b.json": "[",
        ])
        #expect(problems.map(\.kind) == [.unknownStateKey, .typeMismatch, .duplicateRowID, .invalidJSON, .unknownScreen])
    }

    @Test func customKindsAreDeclaredAndChecked() {
        let kinds = #""kinds": {"gauge": {"label": "string", "level": "number"}},"#
        #expect(definitionProblems(["a.json": definition(rows: #"{"id": "r", "kind": "gauge", "label": "Battery", "level": 0.5}"#, extra: kinds)]).isEmpty)
        let problems = definitionProblems(["a.json": definition(rows: #"{"id": "r", "kind": "gauge", "label": 3}"#, extra: kinds)])
        #expect(
            problems.map(\.description) == [
                "a.json: $.sections[0].rows[0].label: expected a string (a template), found number",
                "a.json: $.sections[0].rows[0]: missing required field \"level\"",
            ])
        let builtIn = definitionProblems(["a.json": definition(rows: "", extra: #""kinds": {"basic": {"x": "string"}},"#)])
        #expect(builtIn.map(\.message) == ["\"basic\" is a built-in kind; give the custom kind another name"])
    }
}
