import TabulaCore
import Testing

/// One sample per row kind; its encoding is committed under `Fixtures/expected/wire/`.
let rowSamples: [(name: String, row: Row)] = [
    ("basic", Row(id: "details", content: .basic(title: "Details"), selectable: true, accessory: .disclosureIndicator)),
    (
        "subtitle-list-item",
        Row(
            id: "message-7", content: .subtitle(title: "Lunch?", subtitle: "Ann", image: nil), selectable: true, deletable: true, movable: true,
            leadingActions: [SwipeAction(id: "flag", title: "Flag")],
            trailingActions: [SwipeAction(id: "archive", title: "Archive"), SwipeAction(id: "delete", title: "Delete", style: .destructive)],
            accessibility: RowAccessibility(label: "Lunch?, from Ann", hint: "Opens the message", value: "unread"))
    ),
    (
        "leftRightTitles-accessible",
        Row(
            id: "storage", content: .leftRightTitles(leftTitle: "Storage", rightTitle: "12 GB"), movable: true,
            trailingActions: [SwipeAction(id: "clear", title: "Clear")], accessibility: RowAccessibility(value: "12 gigabytes"))
    ),
    ("subtitle", Row(id: "ann", content: .subtitle(title: "Ann", subtitle: "Age 31", image: "person.circle"))),
    ("subtitle-without-image", Row(id: "bob", content: .subtitle(title: "Bob", subtitle: "Age 42", image: nil))),
    ("leftRightTitles", Row(id: "version", content: .leftRightTitles(leftTitle: "Version", rightTitle: "1.0"))),
    ("titleSwitch", Row(id: "wifi", content: .titleSwitch(title: "Wi-Fi", isOn: true), height: 44)),
    ("checkmark", Row(id: "dark", content: .checkmark(title: "Dark", isChecked: false), selectable: true)),
    ("empty", Row(id: "spacer", content: .empty, height: 20.5)),
    ("button", Row(id: "sign-out", content: .button(title: "Sign Out", style: .destructive), selectable: true)),
    (
        "textField",
        Row(
            id: "email", content: .textField(TextFieldInput(title: "E-mail", text: "ann@example.com", placeholder: "name@example.com", contentType: .email)),
            editable: true, error: "Enter a valid e-mail address", leadingActions: [SwipeAction(id: "paste", title: "Paste")],
            accessibility: RowAccessibility(label: "E-mail address"))
    ),
    (
        "textField-secure",
        Row(id: "password", content: .textField(TextFieldInput(title: "Password", text: "", contentType: .password, maxLength: 64)), editable: true)
    ),
    ("slider", Row(id: "volume", content: .slider(NumberInput(title: nil, value: 0.25, min: 0, max: 1, step: 0)), editable: true)),
    ("stepper", Row(id: "copies", content: .stepper(NumberInput(title: "Copies", value: 3, min: 1, max: 10, step: 1)), enabled: false)),
    (
        "picker",
        Row(
            id: "security",
            content: .picker(
                ChoiceInput(title: "Security", options: [ChoiceOption(id: "none", title: "None"), ChoiceOption(id: "wpa2", title: "WPA2")], selected: nil)),
            editable: true)
    ),
    (
        "segmented",
        Row(
            id: "size",
            content: .segmented(ChoiceInput(title: nil, options: [ChoiceOption(id: "s", title: "S"), ChoiceOption(id: "m", title: "M")], selected: "m")),
            editable: true)
    ),
    (
        "datePicker",
        Row(
            id: "birthday", content: .datePicker(DateInput(title: "Birthday", mode: .date, value: "1990-02-28", min: "1900-01-01", max: "2026-11-28")),
            editable: true)
    ),
    (
        "custom",
        Row(
            id: "battery", content: .custom(kind: "gauge", fields: ["label": .string("Battery"), "level": .number(0.75), "Charging": .bool(true)]),
            accessory: .detailButton, estimatedHeight: 60)
    ),
]

@Suite struct WireGoldenTests {
    @Test(arguments: rowSamples.map(\.name))
    func rowKindMatchesGoldenFile(name: String) throws {
        let row = try #require(rowSamples.first { $0.name == name }?.row)
        var writer = JSONWriter()
        writer.write(row)
        #expect(try goldenMatches(writer.bytes, "Fixtures/expected/wire/row-\(name).json"))
    }

    @Test(arguments: rowSamples.map(\.name))
    func rowKindRoundTrips(name: String) throws {
        let row = try #require(rowSamples.first { $0.name == name }?.row)
        var writer = JSONWriter()
        writer.write(row)
        let decoded = try Row(json: try JSONParser().parse(writer.bytes), path: "$")
        #expect(decoded == row)
    }

    @Test func keyOrderIsStableAndSorted() throws {
        for (_, row) in rowSamples {
            var first = JSONWriter()
            first.write(row)
            var second = JSONWriter()
            second.write(row)
            #expect(first.bytes == second.bytes)
            // The canonical re-encoding of the parsed bytes sorts every key: equal means sorted.
            #expect(try JSONParser().parse(first.bytes).canonicalBytes == first.bytes)
        }
    }

    @Test func screenMatchesGoldenFile() throws {
        let sample = Screen(
            id: "sample", title: "Sample", revision: 3, definition: "0123456789abcde", style: .insetGrouped,
            sections: [
                Section(
                    id: "first", header: .titleHeader(title: "First"), footer: .textFooter(text: "2 rows"),
                    rows: Array(rowSamples.prefix(2).map(\.row))),
                Section(
                    id: "second", header: .custom(kind: "bannerHeader", fields: ["title": .string("Hi"), "tone": .number(2)]),
                    rows: Array(rowSamples.dropFirst(2).map(\.row))),
                Section(id: "empty-section"),
            ])
        #expect(try goldenMatches(sample.jsonBytes, "Fixtures/expected/wire/screen.json"))
        #expect(try Screen(jsonBytes: sample.jsonBytes) == sample)
        #expect(try JSONParser().parse(sample.jsonBytes).canonicalBytes == sample.jsonBytes)
    }

    @Test func changeSetMatchesGoldenFile() throws {
        let old = screen([section("a", ["1", "2", "3"], header: "A"), section("b", ["4"]), section("c", ["5"])])
        var new = screen([section("c", ["5", "2"]), section("a", ["3", "1x", "6"], header: "A2"), section("d", ["7"])])
        new.sections[1].rows[1] = basicRow("1", "one")
        let changes = diff(old: old, new: new)
        #expect(try goldenMatches(changes.jsonBytes, "Fixtures/expected/wire/change-set.json"))
        #expect(try ChangeSet(jsonBytes: changes.jsonBytes) == changes)
        #expect(try JSONParser().parse(changes.jsonBytes).canonicalBytes == changes.jsonBytes)
    }
}
