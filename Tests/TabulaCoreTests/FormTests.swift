import TabulaCore
import TabulaSamples
import Testing

/// Forms: sections that name one, `valid('FORM')`, the `submit` action with the values a
/// selection carries, and `reset`.
@Suite struct FormTests {
    func form() throws -> (ScreenDefinition, SessionState) {
        let catalogue = try Catalogue.load([DefinitionFile(name: "signin.json", bytes: Array(FormSamples.signIn.utf8))])
        return (try #require(catalogue.screen(id: "signin")), catalogue.initialState)
    }

    func row(_ definition: ScreenDefinition, _ state: SessionState, _ id: String) -> Row? {
        render(definition, state).sections.flatMap(\.rows).first { $0.id == id }
    }

    @Test func aSubmitThatFailsTouchesEveryRowAndStopsTheActions() throws {
        let (form, initial) = try form()
        #expect(row(form, initial, "email")?.error == nil && row(form, initial, "status")?.content == .basic(title: "Incomplete"))
        let failed = try reduction(of: .select(row: "go"), on: initial, form)
        #expect(failed.submit == SubmitResult(form: "signin", valid: false))
        #expect(failed.state.scalar("signedIn") == .bool(false), "the actions after a failed submit do not run")
        #expect(failed.state.revision == 1, "the touched marks are a revision")
        #expect(row(form, failed.state, "email")?.error == "Enter your e-mail address")
        #expect(row(form, failed.state, "password")?.error == "Enter your password", "a secure row without a value counts as empty")
        #expect(row(form, failed.state, "repeat")?.error == nil)
    }

    @Test func aSubmitWithTheValuesTheUserTypedPasses() throws {
        let (form, initial) = try form()
        let values: [(row: String, value: JSONValue)] = [("email", "ann@example.com"), ("password", "correct horse"), ("repeat", "correct horse")]
        let passed = try reduction(of: .select(row: "go"), on: initial, form, values: values)
        #expect(passed.submit == SubmitResult(form: "signin", valid: true))
        #expect(passed.state.scalar("signedIn") == .bool(true) && passed.state.scalar("email") == .string("ann@example.com"))
        #expect(passed.state.revision == 1, "values, marks and actions: one revision")
        #expect(!String(decoding: passed.state.valuesBytes, as: UTF8.self).contains("correct horse"))
        #expect(row(form, passed.state, "status")?.content == .basic(title: "Ready"), "a secure row passes once a value that passed was seen")
        #expect(form.isFormValid("signin", passed.state))
        let values2: [(row: String, value: JSONValue)] = [("email", "ann@example.com"), ("password", "correct horse"), ("repeat", "correct hose")]
        let mismatch = try reduction(of: .select(row: "go"), on: initial, form, values: values2)
        #expect(mismatch.submit?.valid == false && row(form, mismatch.state, "repeat")?.error == "Does not match")
        #expect(render(form, mismatch.state, reusing: render(form, initial), renderedAt: initial) == render(form, mismatch.state))
        let retyped = try reduce(mismatch.state, .edit(row: "password", value: "correct hose"), form).state
        #expect(row(form, retyped, "repeat")?.error == nil, "a new value of the password: the comparison passes until a submit")
        #expect(form.isFormValid("signin", retyped) && row(form, retyped, "status")?.content == .basic(title: "Ready"))
        #expect(render(form, retyped, reusing: render(form, mismatch.state), renderedAt: mismatch.state) == render(form, retyped))
        let again = try reduction(of: .select(row: "go"), on: retyped, form, values: [("password", "correct hose"), ("repeat", "correct horse")])
        #expect(again.submit?.valid == false && row(form, again.state, "repeat")?.error == "Does not match", "the next submit compares again")
    }

    /// A secure row whose `equals` with another secure row failed at a submit: a new value of
    /// that row clears the failure only when no rule after the `equals` needs the row's own
    /// value, which is not kept; the row's own next edit always does.
    @Test func aSecureRowsEqualsFailureAndTheRulesAfterIt() throws {
        let rows = #"""
            {"id": "pw", "kind": "textField", "title": "Password", "secure": true},
            {"id": "again", "kind": "textField", "title": "Again", "secure": true,
             "validate": [{"equals": "pw", "message": "Must match"}, {"minLength": 4, "message": "Too short"}]},
            {"id": "other", "kind": "textField", "title": "Other", "secure": true, "validate": [{"equals": "pw", "message": "Differs"}]},
            {"id": "go", "kind": "button", "title": "Go", "onSelect": {"submit": "f"}}
            """#
        let file = definition(id: "f", state: "{}", rows: rows).replacingOccurrences(of: #""rows""#, with: #""form": "f", "rows""#)
        let catalogue = try Catalogue.load([DefinitionFile(name: "f.json", bytes: Array(file.utf8))])
        let form = try #require(catalogue.screen(id: "f"))
        let failed = try reduction(of: .select(row: "go"), on: catalogue.initialState, form, values: [("pw", "abcd"), ("again", "abce"), ("other", "x")])
        #expect(row(form, failed.state, "again")?.error == "Must match" && row(form, failed.state, "other")?.error == "Differs")
        let retyped = try reduce(failed.state, .edit(row: "pw", value: "abce"), form).state
        #expect(row(form, retyped, "other")?.error == nil, "no rule after the equals: it passes until the next submit")
        #expect(row(form, retyped, "again")?.error == "Must match", "whether its value is long enough is not known")
        #expect(!form.isFormValid("f", retyped))
        let own = try reduce(retyped, .edit(row: "again", value: "abce"), form).state
        #expect(row(form, own, "again")?.error == nil && form.isFormValid("f", own))
    }

    /// An `equals` with a secure row is checked at a submit, which carries the secure value;
    /// what it found shows until the row's next edit, and `valid` agrees with the submit.
    @Test func anEqualsWithASecureRowThatFailsAtSubmitShowsItsError() throws {
        let rows = #"""
            {"id": "pw", "kind": "textField", "title": "Password", "secure": true, "validate": [{"required": true, "message": "Enter it"}]},
            {"id": "hint", "kind": "textField", "title": "Hint", "text": "{{hint}}", "onEdit": {"set": "hint"},
             "validate": [{"equals": "pw", "message": "Must match"}]},
            {"id": "status", "kind": "basic", "title": "{{valid('f') ? 'valid' : 'invalid'}}"},
            {"id": "go", "kind": "button", "title": "Go", "onSelect": [{"submit": "f"}, {"set": {"done": true}}]},
            {"id": "clear", "kind": "button", "title": "Clear", "onSelect": {"reset": "f"}}
            """#
        let file = definition(id: "f", state: #"{"hint": "", "done": false}"#, rows: rows).replacingOccurrences(of: #""rows""#, with: #""form": "f", "rows""#)
        let catalogue = try Catalogue.load([DefinitionFile(name: "f.json", bytes: Array(file.utf8))])
        let form = try #require(catalogue.screen(id: "f"))
        let typed = try reduce(catalogue.initialState, .edit(row: "hint", value: "abc"), form).state
        #expect(row(form, typed, "hint")?.error == nil, "passes before a submit: the secure value is not known")
        let failed = try reduction(of: .select(row: "go"), on: typed, form, values: [("pw", "xyz")])
        #expect(failed.submit == SubmitResult(form: "f", valid: false) && failed.state.scalar("done") == .bool(false))
        #expect(row(form, failed.state, "hint")?.error == "Must match" && row(form, failed.state, "pw")?.error == nil)
        #expect(row(form, failed.state, "status")?.content == .basic(title: "invalid"), "valid agrees with the submit")
        #expect(render(form, failed.state, reusing: render(form, typed), renderedAt: typed) == render(form, failed.state))
        let retyped = try reduce(failed.state, .edit(row: "pw", value: "abc"), form).state
        #expect(row(form, retyped, "hint")?.error == nil, "a new secure value: the comparison passes again until a submit")
        #expect(row(form, retyped, "status")?.content == .basic(title: "valid"))
        var stale = failed.state
        stale.marks.secureResults["f/hint"] = 7
        #expect(row(form, stale, "hint")?.error == nil, "a kept result whose rule is gone (the definition changed) counts for nothing")
        let edited = try reduce(failed.state, .edit(row: "hint", value: "xyz"), form).state
        #expect(row(form, edited, "hint")?.error == nil && row(form, edited, "status")?.content == .basic(title: "valid"))
        let passed = try reduction(of: .select(row: "go"), on: edited, form, values: [("pw", "xyz")])
        #expect(passed.submit?.valid == true && passed.state.scalar("done") == .bool(true))
        let cleared = try reduce(failed.state, .select(row: "clear"), form).state
        #expect(cleared.marks.isEmpty)
    }

    /// A submit that carries no value for a secure row counts it as empty, for a rule of
    /// another row that compares with it as for its own.
    @Test func anUnsentSecureRowIsEmptyForTheRowsComparedWithIt() throws {
        let rows = #"""
            {"id": "new", "kind": "textField", "title": "New", "secure": true},
            {"id": "repeat", "kind": "textField", "title": "Repeat", "secure": true, "validate": [{"equals": "new", "message": "Does not match"}]},
            {"id": "go", "kind": "button", "title": "Go", "onSelect": {"submit": "f"}}
            """#
        let file = definition(id: "f", state: "{}", rows: rows).replacingOccurrences(of: #""rows""#, with: #""form": "f", "rows""#)
        let catalogue = try Catalogue.load([DefinitionFile(name: "f.json", bytes: Array(file.utf8))])
        let form = try #require(catalogue.screen(id: "f"))
        let failed = try reduction(of: .select(row: "go"), on: catalogue.initialState, form, values: [("repeat", "abc")])
        #expect(failed.submit?.valid == false && row(form, failed.state, "repeat")?.error == "Does not match")
        let passed = try reduction(of: .select(row: "go"), on: catalogue.initialState, form, values: [("repeat", "")])
        #expect(passed.submit?.valid == true, "both empty: they match")
    }

    /// The backend's message on a row lasts until its form's next submit, which clears it on
    /// a row hidden at the time too.
    @Test func aSubmitClearsTheBackendsMessagesOnHiddenRows() throws {
        let rows = #"""
            {"id": "code", "kind": "textField", "title": "Code", "text": "{{code}}", "onEdit": {"set": "code"}, "visibleWhen": "needsCode"},
            {"id": "needs", "kind": "titleSwitch", "title": "Needs a code", "isOn": "needsCode", "onSwitch": {"set": "needsCode"}},
            {"id": "go", "kind": "button", "title": "Go", "onSelect": {"submit": "f"}}
            """#
        let file = definition(id: "f", state: #"{"code": "", "needsCode": true}"#, rows: rows)
            .replacingOccurrences(of: #""rows""#, with: #""form": "f", "rows""#)
        let catalogue = try Catalogue.load([DefinitionFile(name: "f.json", bytes: Array(file.utf8))])
        let form = try #require(catalogue.screen(id: "f"))
        var answered = catalogue.initialState
        answered.marks.touched.insert("f/code")
        answered.marks.backendErrors["f/code"] = "Wrong code"
        #expect(row(form, answered, "code")?.error == "Wrong code")
        let hidden = try reduce(answered, .setSwitch(row: "needs", isOn: false), form).state
        let submitted = try reduce(hidden, .select(row: "go"), form).state
        let shown = try reduce(submitted, .setSwitch(row: "needs", isOn: true), form).state
        #expect(row(form, shown, "code")?.error == nil, "the message the submit cleared does not come back")
    }

    /// Forms whose rows each read every form's validity re-judge one another: a reading of
    /// `valid` judges a bounded number of forms, so rendering ends (in factorial time it
    /// would not, with a dozen forms), and ends the same way each time.
    @Test(.timeLimit(.minutes(1))) func formsThatReadEachOthersValidityRender() throws {
        let forms = 1...12
        let reads = forms.map { "valid('f\($0)')" }.joined(separator: " == ")
        let sections = forms.map { index in
            #"{"id": "s\#(index)", "form": "f\#(index)", "rows": [{"id": "r\#(index)", "kind": "textField", "title": "T", "text": "{{x}}", "onEdit": {"set": "x"}, "visibleWhen": "\#(reads)"}]}"#
        }
        let file = #"{"id": "forms", "title": "T", "state": {"x": "a"}, "sections": [\#(sections.joined(separator: ", "))]}"#
        let catalogue = try Catalogue.load([DefinitionFile(name: "forms.json", bytes: Array(file.utf8))])
        let definition = try #require(catalogue.screen(id: "forms"))
        let screen = render(definition, catalogue.initialState)
        #expect(screen == render(definition, catalogue.initialState))
        #expect(screen.sections.count == 12)
    }

    /// A form whose rows read its own validity: judged inside its judging, it is not valid,
    /// and rendering ends.
    @Test func aFormThatReadsItsOwnValidityRenders() throws {
        let rows = #"""
            {"id": "x", "kind": "textField", "title": "{{valid('f') ? 'X' : 'x'}}", "text": "{{x}}", "onEdit": {"set": "x"},
             "validate": [{"when": "valid('f')", "message": "{{valid('f') ? '' : 'Loop'}}"}]},
            {"id": "pw", "kind": "textField", "title": "PW", "secure": true, "visibleWhen": "!valid('f')",
             "validate": [{"required": true, "message": "{{valid('f') ? '' : 'Enter it'}}"}]},
            {"id": "status", "kind": "basic", "title": "{{valid('f') ? 'valid' : 'invalid'}}"}
            """#
        let file = definition(id: "f", state: #"{"x": ""}"#, rows: rows).replacingOccurrences(of: #""rows""#, with: #""form": "f", "rows""#)
        let catalogue = try Catalogue.load([DefinitionFile(name: "f.json", bytes: Array(file.utf8))])
        let form = try #require(catalogue.screen(id: "f"))
        let state = try reduce(catalogue.initialState, .edit(row: "x", value: "a"), form).state
        let typed = try reduce(state, .edit(row: "pw", value: "b"), form).state
        #expect(row(form, typed, "status")?.content == .basic(title: "invalid"))
        #expect(row(form, typed, "x")?.error == "Loop")
    }

    /// The feed records a submit's values as the submit found them, not as the actions after
    /// it (a reset) left them.
    @Test func aSubmitsValuesAreTheFormAsTheSubmitFoundIt() throws {
        let rows = #"""
            {"id": "name", "kind": "textField", "title": "Name", "text": "{{name}}", "onEdit": {"set": "name"}},
            {"id": "pw", "kind": "textField", "title": "Password", "secure": true},
            {"id": "kind", "kind": "picker", "title": "Kind", "selected": "{{kind}}", "onEdit": {"set": "kind"}, "options": [{"id": "a", "title": "A"}]},
            {"id": "go", "kind": "button", "title": "Go", "onSelect": [{"submit": "f"}, {"set": {"last": "{{name}}"}}, {"reset": "f"}]}
            """#
        let file = definition(id: "f", state: #"{"name": "", "last": "", "kind": ""}"#, rows: rows)
            .replacingOccurrences(of: #""rows""#, with: #""form": "f", "rows""#)
        let catalogue = try Catalogue.load([DefinitionFile(name: "f.json", bytes: Array(file.utf8))])
        let form = try #require(catalogue.screen(id: "f"))
        let submitted = try reduction(of: .select(row: "go"), on: catalogue.initialState, form, values: [("name", "Home"), ("pw", "secret")])
        #expect(submitted.state.scalar("name") == .string("") && submitted.state.scalar("last") == .string("Home"))
        // The secure row is left out; the picker with nothing chosen is there, as no value.
        #expect(submitted.submittedValues.map(\.row) == ["name", "kind"] && submitted.submittedValues.map(\.value) == [.string("Home"), .null])
    }

    @Test func valuesOutsideTheSubmittedFormAreRefused() throws {
        let (form, initial) = try form()
        #expect(throws: EventError.self) { try reduction(of: .select(row: "go"), on: initial, form, values: [("status", "x")]) }
        #expect(throws: EventError.self) { try reduction(of: .select(row: "clear"), on: initial, form, values: [("email", "x")]) }
        #expect(throws: EventError.invalidValue(row: "email", accepts: "a string with no control characters")) {
            try reduction(of: .select(row: "go"), on: initial, form, values: [("email", 3)])
        }
    }

    /// A row hidden now keeps its marks until a reset clears them, and a value a submit
    /// carries for it is refused as an edit of it would be.
    @Test func hiddenRowsOfAFormAreStillItsRows() throws {
        let rows = #"""
            {"id": "nick", "kind": "textField", "title": "Nick", "text": "{{nick}}", "onEdit": {"set": "nick"}, "visibleWhen": "!hide",
             "validate": [{"required": true, "message": "A nick, please"}]},
            {"id": "hide", "kind": "titleSwitch", "title": "Hide", "isOn": "hide", "onSwitch": {"set": "hide"}},
            {"id": "go", "kind": "button", "title": "Go", "onSelect": {"submit": "f"}},
            {"id": "clear", "kind": "button", "title": "Clear", "onSelect": {"reset": "f"}}
            """#
        let file = definition(id: "f", state: #"{"nick": "", "hide": false}"#, rows: rows).replacingOccurrences(of: #""rows""#, with: #""form": "f", "rows""#)
        let catalogue = try Catalogue.load([DefinitionFile(name: "f.json", bytes: Array(file.utf8))])
        let form = try #require(catalogue.screen(id: "f"))
        var state = try reduce(catalogue.initialState, .edit(row: "nick", value: ""), form).state
        #expect(row(form, state, "nick")?.error == "A nick, please")
        state = try reduce(state, .setSwitch(row: "hide", isOn: true), form).state
        #expect(throws: EventError.rowHidden("nick")) { try reduction(of: .select(row: "go"), on: state, form, values: [("nick", "x")]) }
        state = try reduce(state, .select(row: "clear"), form).state
        #expect(state.marks.isEmpty, "the reset cleared the hidden row's mark")
        state = try reduce(state, .setSwitch(row: "hide", isOn: false), form).state
        #expect(row(form, state, "nick")?.error == nil)
    }

    @Test func resetClearsTheFormsValuesAndMarks() throws {
        let (form, initial) = try form()
        let failed = try reduction(of: .select(row: "go"), on: initial, form, values: [("email", "ann")]).state
        #expect(failed.scalar("email") == .string("ann") && !failed.marks.isEmpty)
        let cleared = try reduce(failed, .select(row: "clear"), form).state
        #expect(cleared.scalar("email") == .string("") && cleared.marks.isEmpty && cleared.revision == failed.revision + 1)
    }

    @Test(arguments: [
        (#"{"id": "a", "kind": "button", "title": "Go", "onSelect": {"submit": "nope"}}"#, #"no section of this screen names the form "nope""#),
        (#"{"id": "a", "kind": "basic", "title": "{{valid('nope') ? 'y' : 'n'}}"}"#, #"names the form "nope""#),
    ])
    func unknownFormsAreProblems(row: String, message: String) {
        let problems = definitionProblems(["a.json": definition(rows: row)])
        #expect(problems.contains { $0.message.contains(message) }, "\(problems)")
    }

    @Test func aFormWithoutInputRowsCannotBeSubmitted() {
        let file =
            #"{"id": "s", "title": "T", "sections": [{"id": "f", "form": "empty", "rows": [{"id": "a", "kind": "button", "title": "Go", "onSelect": {"submit": "empty"}}]}]}"#
        #expect(definitionProblems(["a.json": file]).contains { $0.message.contains("has no input rows") })
    }
}
