import TabulaCore
import TabulaICU
import Testing

/// `validate` rules: a row's error is the message of the first rule its value fails, shown
/// once the row is touched; touched marks and secure fields' results are state, kept
/// through the stored form and followed by incremental render.
@Suite struct ValidationTests {
    static let rows = #"""
        {"id": "email", "kind": "textField", "title": "E-mail", "text": "{{email}}", "onEdit": {"set": "email"},
         "validate": [{"required": true, "message": "Enter your e-mail address"}, {"pattern": "[^@ ]+@[^@ ]+", "message": "Enter a valid e-mail address"}]},
        {"id": "password", "kind": "textField", "title": "Password", "contentType": "newPassword",
         "validate": [{"required": true, "message": "Choose a password"}, {"minLength": 8, "message": "At least 8 characters"}]},
        {"id": "age", "kind": "stepper", "title": "Age", "value": "age", "min": 0, "max": 120, "onEdit": {"set": "age"},
         "validate": [{"min": 18, "message": "{{@adult}}"}]},
        {"id": "repeat", "kind": "textField", "title": "Repeat", "text": "{{again}}", "onEdit": {"set": "again"},
         "validate": [{"equals": "email", "message": "Does not match"}]},
        {"id": "start", "kind": "datePicker", "title": "Start", "value": "{{start}}", "onEdit": {"set": "start"},
         "validate": [{"max": "2026-12-31", "message": "This year only"}, {"when": "!closed", "message": "Closed"}]},
        {"id": "close", "kind": "titleSwitch", "title": "Closed", "isOn": "closed", "onSwitch": {"set": "closed"}}
        """#

    func form() throws -> (ScreenDefinition, SessionState) {
        let file = definition(
            id: "form", state: #"{"email": "", "age": 30, "again": "", "start": "", "closed": false}"#,
            rows: Self.rows.replacingOccurrences(of: "{{@adult}}", with: "Adults only"))
        let catalogue = try Catalogue.load([DefinitionFile(name: "form.json", bytes: Array(file.utf8))])
        return (try #require(catalogue.screen(id: "form")), catalogue.initialState)
    }

    func error(_ form: ScreenDefinition, _ state: SessionState, _ id: String) -> String? {
        render(form, state).sections.flatMap(\.rows).first { $0.id == id }?.error
    }

    func edit(_ state: SessionState, _ row: String, _ value: JSONValue, _ form: ScreenDefinition) throws -> SessionState {
        try reduce(state, .edit(row: row, value: value), form).state
    }

    @Test func anErrorShowsOnceTheRowIsTouched() throws {
        let (form, initial) = try form()
        #expect(error(form, initial, "email") == nil, "an untouched, empty, required field shows no error")
        var state = try edit(initial, "email", "ann", form)
        #expect(state.revision == 1 && error(form, state, "email") == "Enter a valid e-mail address")
        state = try edit(state, "email", "", form)
        #expect(error(form, state, "email") == "Enter your e-mail address", "the first failing rule's message")
        state = try edit(state, "email", "ann@example.com", form)
        #expect(error(form, state, "email") == nil)
        state = try edit(state, "age", 12, form)
        #expect(error(form, state, "age") == "Adults only")
    }

    @Test func equalsComparesWithTheOtherRowsValue() throws {
        let (form, initial) = try form()
        var state = try edit(initial, "email", "ann@example.com", form)
        state = try edit(state, "repeat", "ann@example.org", form)
        #expect(error(form, state, "repeat") == "Does not match")
        let previous = state
        state = try edit(state, "email", "ann@example.org", form)
        #expect(error(form, state, "repeat") == nil, "a change of the other row clears it")
        #expect(render(form, state, reusing: render(form, previous), renderedAt: previous) == render(form, state))
    }

    @Test func datesAndConditionsOverState() throws {
        let (form, initial) = try form()
        var state = try edit(initial, "start", "2027-01-02", form)
        #expect(error(form, state, "start") == "This year only")
        state = try edit(state, "start", "2026-05-01", form)
        #expect(error(form, state, "start") == nil)
        let previous = state
        state = try reduce(state, .setSwitch(row: "close", isOn: true), form).state
        #expect(error(form, state, "start") == "Closed")
        #expect(render(form, state, reusing: render(form, previous), renderedAt: previous) == render(form, state))
        state = try edit(state, "start", .null, form)
        #expect(error(form, state, "start") == nil, "only required judges an empty value: a when rule passes on it")
    }

    /// A `when` rule's message reads state too: it used to be left out of what the rule
    /// reads, so a change of the key kept the old message on an incremental render, and the
    /// stored document did not declare a key another screen owns (it then did not read back).
    @Test func aWhenRulesMessageFollowsTheStateItReads() throws {
        let rows = #"""
            {"id": "agree", "kind": "textField", "title": "Agree", "text": "{{answer}}", "onEdit": {"set": "answer"},
             "validate": [{"when": "answer == 'yes'", "message": "{{userName}}, please say yes"}]}
            """#
        let catalogue = try Catalogue.load([
            DefinitionFile(name: "terms.json", bytes: Array(definition(id: "terms", state: #"{"answer": ""}"#, rows: rows).utf8)),
            DefinitionFile(
                name: "profile.json",
                bytes: Array(
                    definition(
                        id: "profile", state: #"{"userName": "Ann"}"#,
                        rows: #"{"id": "name", "kind": "textField", "title": "Name", "text": "{{userName}}", "onEdit": {"set": "userName"}}"#
                    ).utf8)),
        ])
        let terms = try #require(catalogue.screen(id: "terms"))
        let profile = try #require(catalogue.screen(id: "profile"))
        let refused = try edit(catalogue.initialState, "agree", "no", terms)
        #expect(error(terms, refused, "agree") == "Ann, please say yes")
        let renamed = try reduction(of: .edit(row: "name", value: "Bea"), on: refused, profile)
        #expect(
            render(terms, renamed.state, reusing: render(terms, refused), renderedAt: refused, changedKeys: renamed.changedKeys)
                == render(terms, renamed.state))
        #expect(error(terms, renamed.state, "agree") == "Bea, please say yes")
        let alone = try ScreenDefinition.reading(document: terms.document.bytes, rules: ICULocaleRules())
        #expect(render(alone, renamed.state) == render(terms, renamed.state))
    }

    /// A form whose rule reads another form's validity is as valid as that form's rows make
    /// it, to any depth: a row reading `valid('F')`, where F's rule reads `valid('G')`, used
    /// to keep its old render when only G's row changed.
    @Test func validityReadThroughAnotherFormFollowsItsRows() throws {
        let json = #"""
            {"id": "chain", "title": "Chain", "state": {"name": "", "email": "ann@example.com"}, "sections": [
              {"id": "g", "form": "G", "rows": [{"id": "name", "kind": "textField", "title": "Name", "text": "{{name}}",
                "onEdit": {"set": "name"}, "validate": [{"required": true, "message": "Name"}]}]},
              {"id": "f", "form": "F", "rows": [{"id": "email", "kind": "textField", "title": "E-mail", "text": "{{email}}",
                "onEdit": {"set": "email"}, "validate": [{"when": "valid('G')", "message": "Fill G first"}]}]},
              {"id": "actions", "rows": [{"id": "go", "kind": "button", "title": "Go", "enabledWhen": "valid('F')",
                "onSelect": {"set": {"email": "x"}}}]}]}
            """#
        let catalogue = try Catalogue.load([DefinitionFile(name: "chain.json", bytes: Array(json.utf8))])
        let chain = try #require(catalogue.screen(id: "chain"))
        var state = catalogue.initialState
        var shown = render(chain, state)
        for value in ["a", "", "b", ""] {
            let next = try reduction(of: .edit(row: "name", value: .string(value)), on: state, chain)
            let incremental = render(chain, next.state, reusing: shown, renderedAt: state, changedKeys: next.changedKeys)
            #expect(incremental == render(chain, next.state), "name \"\(value)\"")
            (state, shown) = (next.state, incremental)
        }
    }

    /// A repeated input row's mark goes once its item has left the list: a client adding an
    /// item, editing its row and deleting it, again and again, grew its session's marks
    /// without bound (the state limit does not count them).
    @Test func theMarksOfRowsGoneAreForgotten() throws {
        let json = #"""
            {"id": "todo", "title": "To do", "state": {"tasks": {"type": "list", "item": {"title": "string"}, "default": []}},
             "sections": [{"id": "list", "form": "tasks", "rows": [
               {"id": "task-{{item.id}}", "kind": "textField", "forEach": "tasks", "title": "Task", "text": "{{item.title}}",
                "onEdit": {"set": "item.title"}, "onDelete": {"remove": "tasks"}, "validate": [{"required": true, "message": "Name it"}]},
               {"id": "add", "kind": "button", "title": "Add", "onSelect": {"append": {"to": "tasks", "item": {"title": "new"}}}},
               {"id": "save", "kind": "button", "title": "Save", "onSelect": {"submit": "tasks"}}]}]}
            """#
        let catalogue = try Catalogue.load([DefinitionFile(name: "todo.json", bytes: Array(json.utf8))])
        let todo = try #require(catalogue.screen(id: "todo"))
        var state = try reduce(catalogue.initialState, .select(row: "add"), todo).state
        let kept = try #require(state.records("tasks").first?.id)
        state = try edit(state, "task-\(kept)", "kept", todo)
        for _ in 0..<300 {
            state = try reduce(state, .select(row: "add"), todo).state
            let id = try #require(state.records("tasks").last?.id)
            state = try edit(state, "task-\(id)", "", todo)
            state = try reduce(state, .delete(row: "task-\(id)"), todo).state
        }
        #expect(state.marks.touched.count <= 64, "\(state.marks.touched.count) marks for one row")
        #expect(state.marks.touched.contains(FormMarks.key(screen: "todo", row: "task-\(kept)")), "a row that is still there keeps its mark")
        let submitted = try reduce(state, .select(row: "save"), todo).state
        #expect(submitted.marks.touched == [FormMarks.key(screen: "todo", row: "task-\(kept)")], "a submit forgets the rest")
    }

    @Test func aSecureFieldKeepsWhatItsValueCameToNotTheValue() throws {
        let (form, initial) = try form()
        let short = try edit(initial, "password", "hunter2", form)
        #expect(short.revision == 1, "touching it and its result are a revision")
        #expect(short.values == initial.values)
        #expect(error(form, short, "password") == "At least 8 characters")
        let stored = try SessionState(storedValues: try JSONParser().parse(short.valuesBytes), revision: 1)
        #expect(stored == short, "the marks survive the stored form")
        #expect(!String(decoding: short.valuesBytes, as: UTF8.self).contains("hunter2"))
        let long = try edit(short, "password", "correct horse", form)
        #expect(error(form, long, "password") == nil)
        #expect(render(form, long, reusing: render(form, short), renderedAt: short) == render(form, long))
        #expect(try edit(long, "password", "correct horse", form) == long, "the same result again: no revision")
    }

    /// A secure field keeps which rule its value failed, not the message: the message is
    /// written when the row is drawn, so it follows the state (and the language) like any
    /// other row's, and a rule whose message comes to `""` still fails.
    @Test func aSecureFieldsErrorIsItsRulesMessageWrittenWhenDrawn() throws {
        let rows = #"""
            {"id": "pw", "kind": "textField", "title": "Password", "secure": true, "validate": [{"minLength": 8, "message": "{{hint}}"}]},
            {"id": "status", "kind": "basic", "title": "{{valid('f') ? 'valid' : 'invalid'}}"},
            {"id": "french", "kind": "basic", "title": "French", "onSelect": {"set": {"hint": "Trop court"}}},
            {"id": "silent", "kind": "basic", "title": "Silent", "onSelect": {"set": {"hint": ""}}}
            """#
        let file = definition(id: "f", state: #"{"hint": "Too short"}"#, rows: rows).replacingOccurrences(of: #""rows""#, with: #""form": "f", "rows""#)
        let catalogue = try Catalogue.load([DefinitionFile(name: "f.json", bytes: Array(file.utf8))])
        let form = try #require(catalogue.screen(id: "f"))
        let short = try edit(catalogue.initialState, "pw", "abc", form)
        #expect(error(form, short, "pw") == "Too short" && short.marks.secureResults == ["f/pw": 0])
        let french = try reduce(short, .select(row: "french"), form).state
        #expect(error(form, french, "pw") == "Trop court")
        #expect(render(form, french, reusing: render(form, short), renderedAt: short) == render(form, french))
        let silent = try reduce(short, .select(row: "silent"), form).state
        #expect(error(form, silent, "pw") == "", "a failing rule with an empty message still fails")
        #expect(!form.isFormValid("f", silent))
        let long = try edit(silent, "pw", "long enough", form)
        #expect(error(form, long, "pw") == nil && form.isFormValid("f", long))
    }

    /// Only `required` takes a value of blanks for empty: to the others it is a value.
    @Test func blanksAreAValueToEveryRuleButRequired() throws {
        let (form, initial) = try form()
        var state = try edit(initial, "email", "   ", form)
        #expect(error(form, state, "email") == "Enter your e-mail address")
        state = try edit(state, "repeat", "  ", form)
        #expect(error(form, state, "repeat") == "Does not match", "blanks are not the other row's value")
        state = try edit(state, "repeat", "", form)
        #expect(error(form, state, "repeat") == nil, "an empty value passes every rule but required")
    }

    /// Marks written when a secure field's result was its message still read: `""` passed;
    /// any other message names no rule, and counts as never seen.
    /// A text field's value is read as a decimal number for `min` and `max`: `nan` passed
    /// every bound (each comparison with it is false), and `0x5` read as 5.
    @Test func aTextIsReadAsADecimalNumberForBounds() throws {
        let row = #"""
            {"id": "n", "kind": "textField", "title": "N", "text": "{{n}}", "onEdit": {"set": "n"},
             "validate": [{"min": 1, "message": "Too small"}, {"max": 10, "message": "Too large"}]}
            """#
        let catalogue = try Catalogue.load([DefinitionFile(name: "n.json", bytes: Array(definition(id: "n", state: #"{"n": ""}"#, rows: row).utf8))])
        let screen = try #require(catalogue.screen(id: "n"))
        for (text, expected) in [
            ("nan", "Too small"), ("NaN", "Too small"), (" nan ", "Too small"), ("inf", "Too small"), ("0x5", "Too small"),
            ("0x1p3", "Too small"), ("5,5", "Too small"), ("1e", "Too small"), ("--5", "Too small"), (".", "Too small"),
            ("12", "Too large"), ("0.5", "Too small"), ("1e400", "Too large"),
            ("5", nil), (" 7 ", nil), ("+3", nil), (".5e1", nil), ("5.", nil), ("1E1", nil), ("-0", "Too small"),
        ] as [(String, String?)] {
            #expect(error(screen, try edit(catalogue.initialState, "n", .string(text), screen), "n") == expected, "\(text)")
        }
    }

    @Test func marksThatKeptMessagesStillRead() throws {
        let legacy = try JSONParser().parse(#"{"secure": {"form/a": "", "form/b": "At least 8 characters"}, "touched": ["form/a"]}"#)
        let marks = try FormMarks(stored: legacy, path: "marks")
        #expect(marks.secureResults == ["form/a": FormMarks.passed] && marks.touched == ["form/a"])
        #expect(try FormMarks(stored: marks.json, path: "marks") == marks)
        #expect(throws: StateDecodingError.self) { try FormMarks(stored: try JSONParser().parse(#"{"secure": {"form/a": true}}"#), path: "marks") }
        #expect(throws: StateDecodingError.self) { try FormMarks(stored: try JSONParser().parse(#"{"secure": {"form/a": 1.5}}"#), path: "marks") }
    }

    /// Two rows that must equal each other read each other's value, never each other's
    /// error: rendering them ends.
    @Test func rowsThatEqualEachOtherRender() throws {
        let rows = #"""
            {"id": "a", "kind": "textField", "title": "A", "text": "{{a}}", "onEdit": {"set": "a"}, "validate": [{"equals": "b", "message": "Not b"}]},
            {"id": "b", "kind": "textField", "title": "B", "text": "{{b}}", "onEdit": {"set": "b"}, "validate": [{"equals": "a", "message": "Not a"}]}
            """#
        let catalogue = try Catalogue.load([DefinitionFile(name: "p.json", bytes: Array(definition(id: "p", state: #"{"a": "", "b": ""}"#, rows: rows).utf8))])
        let pair = try #require(catalogue.screen(id: "p"))
        let state = try reduce(catalogue.initialState, .edit(row: "a", value: "x"), pair).state
        #expect(error(pair, state, "a") == "Not b" && error(pair, state, "b") == nil)
    }

    @Test(arguments: [
        (
            #"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "validate": [{"equals": "b", "message": "M"}]}"#,
            "not an input row of this screen"
        ),
        (#"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "validate": [{"pattern": "[a-", "message": "M"}]}"#, "not a regular expression"),
        (
            #"{"id": "a", "kind": "slider", "value": "count", "min": 0, "max": 9, "validate": [{"minLength": 2, "message": "M"}]}"#,
            "a slider has no \"minLength\" rule"
        ),
        (#"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "validate": [{"required": true}]}"#, "a rule needs a \"message\""),
        (
            #"{"id": "a", "kind": "stepper", "title": "A", "value": "count", "min": 0, "max": 9, "validate": [{"min": 5, "message": "M"}, {"max": 2, "message": "M"}]}"#,
            "min (5) is above max (2)"
        ),
        (#"{"id": "a", "kind": "datePicker", "title": "A", "value": "{{name}}", "validate": [{"min": 5, "message": "M"}]}"#, "is not a date like"),
        (#"{"id": "a", "kind": "basic", "title": "A", "validate": [{"required": true, "message": "M"}]}"#, "only input rows"),
        (
            #"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "validate": [{"required": true, "minLength": 2, "message": "M"}]}"#,
            "exactly one of"
        ),
    ])
    func ruleProblemsNameWhatToFix(row: String, message: String) {
        let problems = definitionProblems(["a.json": definition(state: #"{"count": 1, "name": ""}"#, rows: row)])
        #expect(problems.contains { $0.message.contains(message) }, "\(problems)")
    }

    /// `Regex` reads nested classes recursively and without a bound: a few thousand `[`
    /// overflowed its stack, ending `tabula validate`, a start or a running service's reload,
    /// or (its compiling being lazy) the first match. A `]` quoted by `\Q…\E`, or in an
    /// extended-syntax comment, closes no class: those nest as deep as plain ones.
    @Test func deeplyNestedClassesAreAProblemNotACrash() throws {
        let nested = { (depth: Int) in String(repeating: "[", count: depth) + "a" + String(repeating: "]", count: depth) }
        let row = { (pattern: String) in
            #"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "validate": [{"pattern": "\#(pattern)", "message": "M"}]}"#
        }
        let problem = #"not a regular expression Swift's Regex reads: it has more than 64 character classes (a "[" that no backslash escapes)"#
        for pattern in [
            nested(5000),
            String(repeating: #"[\\Q]\\E"#, count: 2000) + "a" + String(repeating: "]", count: 2000),
            "(?x)" + String(repeating: #"[#]\n"#, count: 2000) + "a" + String(repeating: "]", count: 2000),
            String(repeating: "[a]", count: 65),
        ] {
            let problems = definitionProblems(["a.json": definition(state: #"{"name": ""}"#, rows: row(pattern))])
            #expect(problems.map(\.message) == [problem], "\(pattern.prefix(40))")
        }
        #expect(definitionProblems(["a.json": definition(state: #"{"name": ""}"#, rows: row(nested(64)))]).isEmpty)
        #expect(throws: Never.self) { try PatternRule(#"\[\[\[[a]"#) }
    }
}
