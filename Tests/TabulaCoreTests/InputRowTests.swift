import TabulaCore
import Testing

/// Input rows: their wire model, their definitions, how they render (value, options,
/// `enabled`, `editable`, the fallback a client without the kind gets), and the problems a
/// definition of them can have.
@Suite struct InputRowTests {
    static let state =
        #"{"email": "ann@example.com", "volume": 0.5, "copies": 2, "security": "", "countries": [{"id": "fr", "name": "France"}, {"id": "jp", "name": "Japan"}], "country": "jp", "birthday": "", "locked": false}"#

    static let rows = #"""
        {"id": "email", "kind": "textField", "title": "E-mail", "text": "{{email}}", "contentType": "email", "placeholder": "name@example.com", "maxLength": 80, "onEdit": {"set": "email"}, "enabledWhen": "!locked"},
        {"id": "password", "kind": "textField", "title": "Password", "contentType": "password"},
        {"id": "volume", "kind": "slider", "value": "volume", "min": 0, "max": 1, "onEdit": {"set": "volume"}},
        {"id": "copies", "kind": "stepper", "title": "Copies", "value": "copies", "min": 1, "max": 10},
        {"id": "security", "kind": "picker", "title": "Security", "selected": "{{security}}", "options": [{"id": "none", "title": "None"}, {"id": "wpa2", "title": "WPA2"}], "onEdit": {"set": "security"}},
        {"id": "country", "kind": "segmented", "selected": "{{country}}", "options": {"forEach": "countries", "id": "{{item.id}}", "title": "{{item.name}}"}, "onEdit": {"set": "country"}},
        {"id": "birthday", "kind": "datePicker", "title": "Birthday", "value": "{{birthday}}", "min": "1900-01-01", "max": "2026-11-28", "onEdit": {"set": "birthday"}},
        {"id": "lock", "kind": "basic", "title": "Lock", "onSelect": {"toggle": "locked"}}
        """#

    func form() throws -> (ScreenDefinition, SessionState) {
        let catalogue = try Catalogue.load([DefinitionFile(name: "form.json", bytes: Array(definition(id: "form", state: Self.state, rows: Self.rows).utf8))])
        return (try #require(catalogue.screen(id: "form")), catalogue.initialState)
    }

    func row(_ screen: Screen, _ id: String) -> Row? {
        screen.sections.flatMap(\.rows).first { $0.id == id }
    }

    @Test func eachKindRendersItsValueAndWhetherItIsEditable() throws {
        let (form, state) = try form()
        let screen = render(form, state)
        let email = try #require(row(screen, "email"))
        #expect(
            email.content
                == .textField(TextFieldInput(title: "E-mail", text: "ann@example.com", placeholder: "name@example.com", contentType: .email, maxLength: 80)))
        #expect(email.enabled && email.editable && email.error == nil)
        let password = try #require(row(screen, "password"))
        #expect(password.content == .textField(TextFieldInput(title: "Password", text: "", contentType: .password, secure: true)))
        #expect(password.editable, "a secure field is editable whenever it is enabled")
        #expect(row(screen, "volume")?.content == .slider(NumberInput(title: nil, value: 0.5, min: 0, max: 1, step: 0)))
        let copies = try #require(row(screen, "copies"))
        #expect(copies.content == .stepper(NumberInput(title: "Copies", value: 2, min: 1, max: 10, step: 1)))
        #expect(!copies.editable, "a row without onEdit is not editable")
        let options = [ChoiceOption(id: "none", title: "None"), ChoiceOption(id: "wpa2", title: "WPA2")]
        #expect(row(screen, "security")?.content == .picker(ChoiceInput(title: "Security", options: options, selected: nil)))
        let countries = [ChoiceOption(id: "fr", title: "France"), ChoiceOption(id: "jp", title: "Japan")]
        #expect(row(screen, "country")?.content == .segmented(ChoiceInput(title: nil, options: countries, selected: "jp")))
        #expect(
            row(screen, "birthday")?.content == .datePicker(DateInput(title: "Birthday", mode: .date, value: nil, min: "1900-01-01", max: "2026-11-28")))
        #expect(row(screen, "lock")?.enabled == true)
    }

    /// A control shows only what it can hold, whatever a backend wrote into the state.
    @Test func aControlShowsOnlyWhatItCanHold() throws {
        let (form, initial) = try form()
        var state = initial
        state.values["security"] = .scalar(.string("zzz"))
        state.values["birthday"] = .scalar(.string("garbage"))
        state.values["volume"] = .scalar(.number(7))
        state.values["copies"] = .scalar(.number(-3))
        let screen = render(form, state)
        #expect(row(screen, "security")?.content.inputValue == .null, "not one of its options: none chosen")
        #expect(row(screen, "birthday")?.content.inputValue == .null, "not a date: none")
        #expect(row(screen, "volume")?.content.inputValue == .number(1) && row(screen, "copies")?.content.inputValue == .number(1))
        // Off a step: the nearest step, which the row takes back as an edit.
        state.values["copies"] = .scalar(.number(2.6))
        #expect(row(render(form, state), "copies")?.content.inputValue == .number(3))
        state.client = ClientContext(kinds: ["basic"])
        #expect(row(render(form, state), "security")?.content == .leftRightTitles(leftTitle: "Security", rightTitle: ""))
    }

    /// A text field refuses exactly the control characters (general category Cc), those
    /// Swift counts as newlines aside in a multiline one: every scalar is tried.
    @Test func aTextFieldRefusesExactlyTheControlCharacters() {
        let line = RowContent.textField(TextFieldInput(title: "", text: "", contentType: .text))
        let lines = RowContent.textField(TextFieldInput(title: "", text: "", contentType: .text, multiline: true))
        var mismatches: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let control = scalar.properties.generalCategory == .control
            let text = String(String.UnicodeScalarView([scalar]))
            let newline = Character(scalar).isNewline
            if line.accepts(.string(text)) == control || lines.accepts(.string(text)) == (control && !newline) {
                mismatches.append(value)
            }
        }
        #expect(mismatches.isEmpty, "scalars accepted or refused wrongly: \(mismatches.prefix(10))")
    }

    @Test func aDisabledRowIsNotEditableAndRefusesEvents() throws {
        let (form, initial) = try form()
        let (locked, _) = try reduce(initial, .select(row: "lock"), form)
        let email = try #require(row(render(form, locked), "email"))
        #expect(!email.enabled && !email.editable)
        #expect(throws: EventError.rowDisabled("email")) { try reduce(locked, .select(row: "email"), form) }
        // Incremental render follows enabledWhen's key.
        #expect(render(form, locked, reusing: render(form, initial), renderedAt: initial) == render(form, locked))
    }

    @Test func anEditStoresItsValueWhereOnEditSays() throws {
        let (form, state) = try form()
        let (next, effects) = try reduce(state, .edit(row: "email", value: .string("bo@example.com")), form)
        #expect(next.scalar("email") == .string("bo@example.com") && next.revision == state.revision + 1 && effects.isEmpty)
        let (same, _) = try reduce(next, .edit(row: "email", value: .string("bo@example.com")), form)
        #expect(same == next, "the value it has: no revision")
        let (cleared, _) = try reduce(state, .edit(row: "security", value: .null), form)
        #expect(cleared.scalar("security") == .string(""))
        #expect(throws: EventError.invalidValue(row: "country", accepts: #"the id of one of its options ("fr", "jp")"#)) {
            try reduce(state, .edit(row: "country", value: .null), form)
        }
        let (secure, _) = try reduce(state, .edit(row: "password", value: .string("hunter2")), form)
        #expect(secure.values == state.values && secure.revision == 1, "a secure field's value is checked and forgotten; what it came to is kept")
        #expect(secure.marks == FormMarks(touched: ["form/password"], secureResults: ["form/password": FormMarks.passed]))
        #expect(try reduction(of: .edit(row: "password", value: .string("hunter2")), on: state, form).editedSecureField)
        #expect(try !reduction(of: .edit(row: "email", value: .string("bo@example.com")), on: state, form).editedSecureField)
        #expect(throws: EventError.rowNotEditable("copies")) { try reduce(state, .edit(row: "copies", value: .number(3)), form) }
        #expect(throws: EventError.rowNotEditable("lock")) { try reduce(state, .edit(row: "lock", value: .string("x")), form) }
        #expect(throws: EventError.invalidValue(row: "volume", accepts: "a number from 0 to 1")) {
            try reduce(state, .edit(row: "volume", value: .number(2)), form)
        }
        #expect(throws: EventError.invalidValue(row: "security", accepts: #"the id of one of its options ("none", "wpa2") or null"#)) {
            try reduce(state, .edit(row: "security", value: .bool(true)), form)
        }
        let (overshot, _) = try reduce(state, .edit(row: "volume", value: .number(1 + 5e-10)), form)
        #expect(overshot.scalar("volume") == .number(1), "a rounding past a bound is stored as the bound: the control shows no more")
        let (undershot, _) = try reduce(state, .edit(row: "volume", value: .number(-5e-10)), form)
        #expect(undershot.scalar("volume") == .number(0))
        var oldClient = state
        oldClient.client = ClientContext(kinds: ["leftRightTitles", "basic"])
        #expect(throws: EventError.rowNotEditable("email")) { try reduce(oldClient, .edit(row: "email", value: .string("x")), form) }
    }

    /// `onEdit` as actions: `value` is the edited value, of the kind's type; a form's reset
    /// sets back what they store.
    @Test func editActionsSeeTheEditedValue() throws {
        let rows = #"""
            {"id": "name", "kind": "textField", "title": "Name", "text": "{{name}}", "onEdit": [{"set": {"name": "{{value}}", "greeting": "Hello, {{value}}"}}, {"toggle": "edited"}]},
            {"id": "copies", "kind": "stepper", "title": "Copies", "value": "copies", "min": 1, "max": 9, "onEdit": {"set": {"copies": "value", "negated": "-value"}}},
            {"id": "reset", "kind": "button", "title": "Reset", "onSelect": {"reset": "f"}}
            """#
        let text =
            #"{"id": "f", "title": "F", "state": {"name": "", "greeting": "", "edited": false, "copies": 1, "negated": -1}, "sections": [{"id": "s", "form": "f", "rows": [\#(rows)]}]}"#
        let catalogue = try Catalogue.load([DefinitionFile(name: "f.json", bytes: Array(text.utf8))])
        let form = try #require(catalogue.screen(id: "f"))
        let (named, _) = try reduce(catalogue.initialState, .edit(row: "name", value: .string("Ann")), form)
        #expect(named.scalar("name") == .string("Ann") && named.scalar("greeting") == .string("Hello, Ann") && named.scalar("edited") == .bool(true))
        let (counted, _) = try reduce(named, .edit(row: "copies", value: .number(4)), form)
        #expect(counted.scalar("copies") == .number(4) && counted.scalar("negated") == .number(-4) && counted.revision == named.revision + 1)
        #expect(render(form, counted).sections[0].rows[0].editable)
        let (reset, _) = try reduce(counted, .select(row: "reset"), form)
        #expect(reset.values == catalogue.initialState.values, "reset sets back every key the edit actions store into")
    }

    @Test func theUsersCopyShowsTheEditedValueExceptASecureOne() throws {
        let (form, state) = try form()
        let screen = render(form, state)
        #expect(row(screen.showing(.string("new"), inRow: "email"), "email")?.content.inputValue == .string("new"))
        #expect(screen.showing(.string("secret"), inRow: "password") == screen)
        #expect(screen.showing(.number(1), inRow: "email") == screen, "a value of another type changes nothing")
    }

    @Test func aClientWithoutAnInputKindGetsItsValueAsText() throws {
        let (form, initial) = try form()
        var state = initial
        state.values["security"] = .scalar(.string("wpa2"))
        state.values["birthday"] = .scalar(.string("1990-02-28"))
        state.client = ClientContext(kinds: ["basic", "leftRightTitles"])
        let screen = render(form, state)
        #expect(row(screen, "email")?.content == .leftRightTitles(leftTitle: "E-mail", rightTitle: "ann@example.com"))
        #expect(row(screen, "password")?.content == .leftRightTitles(leftTitle: "Password", rightTitle: ""))
        #expect(row(screen, "volume")?.content == .leftRightTitles(leftTitle: "", rightTitle: "0.5"))
        #expect(row(screen, "copies")?.content == .leftRightTitles(leftTitle: "Copies", rightTitle: "2"))
        #expect(row(screen, "security")?.content == .leftRightTitles(leftTitle: "Security", rightTitle: "WPA2"))
        #expect(row(screen, "country")?.content == .leftRightTitles(leftTitle: "", rightTitle: "Japan"))
        #expect(row(screen, "birthday")?.content == .leftRightTitles(leftTitle: "Birthday", rightTitle: "1990-02-28"))
        #expect(row(screen, "email")?.editable == false)
        state.client = ClientContext(kinds: ["basic"])
        #expect(
            render(form, state) == screen,
            "an input row comes as a leftRightTitles to a client that does not list that kind either; other rows as they are")
        var writer = JSONWriter()
        writer.write(try #require(row(screen, "email")))
        #expect(!text(writer.bytes).contains("editable"), "a fallback row is not an input row")
    }

    @Test func inputRowsRoundTripThroughTheWire() throws {
        let (form, state) = try form()
        let screen = render(form, state)
        #expect(try Screen(jsonBytes: screen.jsonBytes) == screen)
    }

    @Test func decodingDefaultsAndRefusals() throws {
        let old = try Row(json: try JSONParser().parse(Array(#"{"id": "a", "kind": "basic", "title": "A"}"#.utf8)), path: "$")
        #expect(old.enabled && !old.editable, "a row from a server before input rows is enabled")
        let badType = #"{"id": "a", "kind": "textField", "title": "A", "text": "", "contentType": "colour"}"#
        #expect(throws: WireFormatError.self) { try Row(json: try JSONParser().parse(Array(badType.utf8)), path: "$") }
        let errorOnBasic = #"{"id": "a", "kind": "basic", "title": "A", "error": "no"}"#
        #expect(throws: WireFormatError(path: "$", problem: .unknownField("error"))) {
            try Row(json: try JSONParser().parse(Array(errorOnBasic.utf8)), path: "$")
        }
        let picker = #"{"id": "p", "kind": "picker", "title": "P", "options": [{"id": "x", "title": "X"}], "selected": null}"#
        #expect(try Row(json: try JSONParser().parse(Array(picker.utf8)), path: "$").content.inputValue == .null)
    }

    @Test func aValueFieldIsSetAsTheUsersControlShowsIt() {
        let choice = RowContent.picker(ChoiceInput(title: "P", options: [ChoiceOption(id: "x", title: "X")], selected: nil))
        #expect(choice.settingInputValue(.string("x"))?.inputValue == .string("x"))
        #expect(choice.settingInputValue(.number(1)) == nil)
        #expect(RowContent.basic(title: "B").settingInputValue(.string("x")) == nil)
        #expect(RowContent.stepper(NumberInput(title: "S", value: 1, min: 0, max: 3, step: 1)).settingInputValue(.number(2))?.inputValue == .number(2))
    }

    /// A number a backend or an expression put off the control's steps or bounds is shown on
    /// the nearest step within them, which the control accepts; one on a step as it is.
    @Test func aNumberIsShownOnTheNearestStep() {
        let half = NumberInput(title: nil, value: 0, min: 0, max: 10, step: 0.5)
        #expect([2.3, 2.75, 2.2, 11, -3, 9.9].map(half.shown) == [2.5, 3, 2, 10, 0, 10])
        let thirds = NumberInput(title: nil, value: 0, min: 1, max: 10, step: 3)
        #expect([10, 9.5, 5, 2.4, 0].map(thirds.shown) == [10, 10, 4, 1, 1])
        let tenths = NumberInput(title: nil, value: 0, min: 0, max: 1, step: 0.1)
        #expect(tenths.shown(0.7) == 0.7, "a value on a step, to a rounding, is shown as it is")
        #expect(tenths.shown(0.34) == 0.3 && tenths.shown(0.66) == 0.7, "not 0.30000000000000004: 3 × 0.1 in binary")
        let odd = NumberInput(title: nil, value: 0, min: 0, max: 10, step: 4)
        #expect(odd.shown(9.9) == 8, "the step below max when max is not on one")
        let continuous = NumberInput(title: nil, value: 0, min: 0, max: 1, step: 0)
        #expect(continuous.shown(0.123) == 0.123 && continuous.shown(2) == 1)
        for number in [half, thirds, tenths, odd] {
            for value in stride(from: -2.0, through: 12, by: 0.37) { #expect(number.accepts(number.shown(value)), "\(number) \(value)") }
        }
    }

    /// A date a backend put outside the picker's bounds is shown at the nearer one, which
    /// the picker accepts back; one not in the mode's format as none.
    @Test func aDateIsShownWithinItsBounds() {
        let picker = DateInput(title: "D", mode: .date, value: nil, min: "2026-01-01", max: "2026-12-31")
        let values = ["2025-06-01", "2026-05-05", "2027-01-01", "2026-5-5", "14:30"]
        #expect(values.map(picker.shown) == ["2026-01-01", "2026-05-05", "2026-12-31", nil, nil])
        for value in values {
            if let shown = picker.shown(value) { #expect(RowContent.datePicker(picker).accepts(.string(shown)), "\(value)") }
        }
        let morning = DateInput(title: "T", mode: .time, value: nil, min: "08:00")
        #expect(morning.shown("07:00") == "08:00" && morning.shown("23:00") == "23:00")
        #expect(DateInput(title: "U", mode: .date, value: nil).shown("1900-01-01") == "1900-01-01", "no bounds")
    }

    @Test func numbersAndDatesAcceptWhatTheControlOffers() {
        let stepper = NumberInput(title: "S", value: 1, min: 0.5, max: 3, step: 0.25)
        #expect(stepper.accepts(0.75) && stepper.accepts(3) && stepper.accepts(0.5 + 0.1 + 0.15))
        #expect(!stepper.accepts(0.8) && !stepper.accepts(3.25) && !stepper.accepts(.nan) && !stepper.accepts(0.25))
        #expect(NumberInput(title: nil, value: 0, min: 0, max: 1, step: 0).accepts(0.123456))
        let options = [ChoiceOption(id: "x", title: "X")]
        #expect(RowContent.picker(ChoiceInput(title: "P", options: options, selected: "x")).accepts(.null), "a picker may be cleared")
        #expect(!RowContent.segmented(ChoiceInput(title: nil, options: options, selected: "x")).accepts(.null), "a segmented control may not")
        #expect(RowContent.segmented(ChoiceInput(title: nil, options: options, selected: nil)).accepts(.string("x")))
        #expect(DateMode.date.accepts("2024-02-29") && !DateMode.date.accepts("2023-02-29") && !DateMode.date.accepts("2024-13-01"))
        #expect(DateMode.time.accepts("23:59") && !DateMode.time.accepts("24:00") && !DateMode.time.accepts("9:30"))
        #expect(DateMode.dateTime.accepts("2026-11-28T14:30") && !DateMode.dateTime.accepts("2026-11-28 14:30"))
    }

    @Test(arguments: [
        (
            #"{"id": "a", "kind": "textField", "title": "A", "text": "{{flag}}", "onEdit": {"set": "flag"}}"#,
            #""flag" is a bool, but a textField stores a string"#
        ),
        (#"{"id": "a", "kind": "slider", "value": "count", "min": 5, "max": 1}"#, "min (5) is above max (1)"),
        (
            #"{"id": "a", "kind": "stepper", "title": "A", "value": "count", "min": -1e308, "max": 1e308, "step": 1e300}"#,
            "max - min is past the largest number"
        ),
        (#"{"id": "a", "kind": "stepper", "title": "A", "value": "count", "min": 0, "max": 5, "step": 0}"#, "a stepper's step is above 0"),
        (#"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "secure": true}"#, "a secure text field shows no value and stores none"),
        (#"{"id": "a", "kind": "textField", "title": "A", "contentType": "password", "onEdit": {"set": "name"}}"#, "a secure text field stores nothing"),
        (
            #"{"id": "a", "kind": "textField", "title": "A", "contentType": "newPassword", "secure": false, "text": "{{name}}", "onEdit": {"set": "name"}}"#,
            "a secure text field shows no value and stores none"
        ),
        (#"{"id": "a", "kind": "basic", "title": "A", "onEdit": {"set": "name"}}"#, "only input rows"),
        (#"{"id": "a", "kind": "datePicker", "title": "A", "value": "{{name}}", "mode": "time", "min": "2026-01-01"}"#, "is not a time like"),
        (#"{"id": "a", "kind": "datePicker", "title": "A", "value": "{{name}}", "min": "2026-12-01", "max": "2026-01-01"}"#, "is after max"),
        (
            #"{"id": "a", "kind": "picker", "title": "A", "selected": "{{name}}", "options": [{"id": "x", "title": "X"}, {"id": "x", "title": "Y"}]}"#,
            "is used twice"
        ),
        (
            #"{"id": "a", "kind": "picker", "title": "A", "selected": "{{name}}", "options": {"forEach": "name", "id": "{{item.id}}", "title": "T"}}"#,
            "is not a list state key"
        ),
        (#"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "maxLength": 2.5}"#, "maxLength is a whole number"),
        (#"{"id": "a", "kind": "basic", "title": "A", "enabledWhen": "count"}"#, "expected a bool expression"),
        (#"{"id": "a", "kind": "basic", "title": "A", "onSelect": {"set": {"count": "value"}}}"#, "unknown state key 'value'"),
        (#"{"id": "a", "kind": "slider", "value": "count", "min": 0, "max": 5, "onEdit": {"set": {"flag": "value"}}}"#, "expected a bool"),
        (#"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "onEdit": [{"call": "check"}]}"#, "onEdit cannot \"call\""),
        (#"{"id": "a", "kind": "textField", "title": "A", "text": "{{name}}", "onEdit": [{"submit": "f"}]}"#, "onEdit cannot \"submit\""),
    ])
    func definitionProblemsNameWhatToFix(row: String, message: String) {
        let problems = definitionProblems(["a.json": definition(state: #"{"flag": true, "count": 1, "name": ""}"#, rows: row)])
        #expect(problems.contains { $0.message.contains(message) }, "\(problems)")
    }
}
