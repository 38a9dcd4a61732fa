import TabulaCore
import Testing

@Suite struct WireDecodingTests {
    func decodeError(_ json: String) -> WireFormatError? {
        do {
            _ = try Screen(jsonBytes: Array(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    func rowScreen(_ row: String) -> String {
        #"{"id":"s","title":"T","sections":[{"id":"a","rows":[\#(row)]}]}"#
    }

    @Test func defaultsOptionalMembers() throws {
        let screen = try Screen(jsonBytes: Array(rowScreen(#"{"id":"r","kind":"basic","title":"x"}"#).utf8))
        #expect(screen.revision == 0)
        #expect(screen.style == nil)
        #expect(screen.sections[0].rows[0] == Row(id: "r", content: .basic(title: "x")))
    }

    @Test func decodesButtonStyleDefault() throws {
        let screen = try Screen(jsonBytes: Array(rowScreen(#"{"id":"r","kind":"button","title":"Go"}"#).utf8))
        #expect(screen.sections[0].rows[0].content == .button(title: "Go", style: .default))
    }

    @Test(arguments: [
        (#"{"id":"r","kind":"basic"}"#, "$.sections[0].rows[0]: missing required field \"title\""),
        (#"{"id":"r","kind":"basic","title":3}"#, "$.sections[0].rows[0].title: expected a string, found number"),
        (
            #"{"id":"r","kind":"basic","title":"x","subtitle":"y"}"#,
            "$.sections[0].rows[0]: unknown field \"subtitle\"; remove it or check its spelling"
        ),
        (
            #"{"id":"r","kind":"titleSwitch","title":"x","isOn":"yes"}"#,
            "$.sections[0].rows[0].isOn: expected a boolean, found string"
        ),
        (
            #"{"id":"r","kind":"basic","title":"x","accessory":"chevron"}"#,
            "$.sections[0].rows[0].accessory: \"chevron\" is not allowed here; use one of \"none\", \"disclosureIndicator\", \"detailButton\", \"checkmark\""
        ),
        (
            #"{"id":"r","kind":"basic","title":"x","height":-1}"#,
            "$.sections[0].rows[0].height: expected a number that is not negative"
        ),
        (
            #"{"id":"r","kind":"gauge","level":[1]}"#,
            "$.sections[0].rows[0].level: expected a string, number or boolean, found array"
        ),
        (#"{"id":"","kind":"empty"}"#, "$.sections[0].rows[0].id: an id must not be empty"),
        (
            #"{"id":"r","kind":"empty"},{"id":"r","kind":"empty"}"#,
            "$.sections[0].rows[1].id: row id \"r\" is used more than once; row ids must be unique across the screen"
        ),
    ])
    func reportsRowProblemsWithPath(row: String, message: String) {
        #expect(decodeError(rowScreen(row))?.description == message)
    }

    @Test func reportsScreenProblems() {
        #expect(decodeError("{").map { "\($0)" } == "$: not valid JSON: the document ends too early (truncated JSON?) at line 1, column 2")
        #expect(
            decodeError(#"{"id":"s","title":"T","sections":[],"revision":-1}"#)?.description
                == "$.revision: expected a number that is not negative")
        #expect(
            decodeError(#"{"id":"s","title":"T","sections":[],"revision":1.5}"#)?.description
                == "$.revision: expected a whole number")
        #expect(
            decodeError(#"{"id":"s","title":"T","sections":[],"style":"fancy"}"#)?.problem
                == .invalidValue("fancy", allowed: ["plain", "grouped", "insetGrouped"]))
        #expect(
            decodeError(#"{"id":"s","title":"T","sections":[{"id":"a","rows":[]},{"id":"a","rows":[]}]}"#)?.description
                == "$.sections[1].id: section id \"a\" is used more than once; section ids must be unique")
        #expect(decodeError(#"{"id":"s","title":"T","sections":{}}"#)?.description == "$.sections: expected an array, found object")
        #expect(decodeError(#"[]"#)?.description == "$: expected an object, found array")
        #expect(decodeError(#"{"id":"s","title":"T","sections":[],"extra":1}"#)?.problem == .unknownField("extra"))
    }

    @Test func rejectsInconsistentCustomRows() {
        let custom = Screen(
            id: "s", title: "T",
            sections: [
                Section(id: "a", rows: [Row(id: "r", content: .custom(kind: "basic", fields: [:]))])
            ])
        #expect(throws: WireFormatError.self) { try custom.validate() }
        let reserved = Screen(
            id: "s", title: "T",
            sections: [
                Section(id: "a", rows: [Row(id: "r", content: .custom(kind: "gauge", fields: ["id": .string("x")]))])
            ])
        #expect(throws: WireFormatError.self) { try reserved.validate() }
    }
}
