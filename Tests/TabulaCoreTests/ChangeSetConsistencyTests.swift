import TabulaCore
import Testing

/// Change sets that do not describe one consistent batch do not apply: a client that applied
/// them would hand its table view a batch whose counts do not add up, or a screen with
/// repeated ids (a malformed or hostile answer; the service's diff never makes them).
@Suite struct ChangeSetConsistencyTests {
    static func screen(_ sections: [[String]]) throws -> Screen {
        let json = sections.enumerated().map { index, rows in
            #"{"id":"s\#(index)","rows":[\#(rows.map { #"{"id":"\#($0)","kind":"basic","title":"\#($0)"}"# }.joined(separator: ","))]}"#
        }.joined(separator: ",")
        return try Screen(jsonBytes: Array(#"{"id":"x","title":"X","sections":[\#(json)]}"#.utf8))
    }

    /// `{"sections":{…},"rows":{…}}` with every list empty but the members given.
    static func changes(sections: String = "", rows: String = "") throws -> ChangeSet {
        func lists(_ given: String) -> String {
            let empty = ["deleted", "inserted", "moved", "updated"].filter { !given.contains("\"\($0)\"") }.map { "\"\($0)\":[]" }
            return "{" + (empty + (given.isEmpty ? [] : [given])).joined(separator: ",") + "}"
        }
        return try ChangeSet(jsonBytes: Array(#"{"sections":\#(lists(sections)),"rows":\#(lists(rows))}"#.utf8))
    }

    static let p00 = #"{"section":0,"row":0}"#

    @Test(arguments: [
        // the same row deleted twice: one row goes, the batch deletes two (UIKit's count check throws)
        ("", #""deleted":[\#(p00),\#(p00)]"#),
        // a row deleted and moved: it is deleted, and reappears
        ("", #""deleted":[\#(p00)],"moved":[{"from":\#(p00),"to":{"section":0,"row":2}}]"#),
        // one row moved twice: it is duplicated
        ("", #""moved":[{"from":\#(p00),"to":{"section":0,"row":2}},{"from":\#(p00),"to":{"section":0,"row":3}}]"#),
        // a row inserted with an id the screen has
        ("", #""inserted":[{"section":0,"row":3,"model":{"id":"a","kind":"basic","title":"dup"}}]"#),
        // an update that gives a kept row another row's id
        ("", #""updated":[{"from":{"section":0,"row":1},"to":{"section":0,"row":1},"model":{"id":"a","kind":"basic","title":"x"}}]"#),
        // a deleted row updated: its content lands on the row that took its index
        ("", #""deleted":[\#(p00)],"updated":[{"from":\#(p00),"to":\#(p00),"model":{"id":"a","kind":"basic","title":"zombie"}}]"#),
        // an update whose `from` is nowhere in the old screen
        ("", #""updated":[{"from":{"section":7,"row":99},"to":{"section":0,"row":1},"model":{"id":"b","kind":"basic","title":"x"}}]"#),
        // an update that changes a row's kind: a cell reconfigured in place would need another class
        ("", #""updated":[{"from":\#(p00),"to":\#(p00),"model":{"id":"a","kind":"titleSwitch","title":"a","isOn":true}}]"#),
        // a deleted row inserted again with its id and another kind, and updated as if kept
        (
            "",
            #""deleted":[\#(p00)],"inserted":[{"section":0,"row":0,"model":{"id":"a","kind":"checkmark","title":"a","isChecked":true}}],"#
                + #""updated":[{"from":\#(p00),"to":\#(p00),"model":{"id":"a","kind":"checkmark","title":"a","isChecked":true}}]"#
        ),
        // a row moved into a section the batch inserts (a table view throws: it comes with its rows)
        (#""inserted":[{"index":2,"section":{"id":"s2","rows":[]}}]"#, #""moved":[{"from":\#(p00),"to":{"section":2,"row":0}}]"#),
        // a row inserted into a section the batch inserts
        (#""inserted":[{"index":2,"section":{"id":"s2","rows":[]}}]"#, #""inserted":[{"section":2,"row":0,"model":{"id":"z","kind":"basic","title":"z"}}]"#),
        // a deleted section inserted again with its id, and updated as if kept
        (
            #""deleted":[1],"inserted":[{"index":1,"section":{"id":"s1","rows":[]}}],"#
                + #""updated":[{"from":1,"to":1,"header":{"kind":"title","title":"h"},"footer":null}]"#,
            ""
        ),
        // an update that gives a stepper a step of 0, which UIStepper refuses
        (
            "",
            #""deleted":[\#(p00)],"inserted":[{"section":0,"row":0,"model":{"id":"a2","kind":"stepper","title":"n","value":1,"min":0,"max":5,"step":0}}]"#
        ),
        // the same section deleted twice
        (#""deleted":[1,1]"#, ""),
        // a section inserted with the id of a kept section (and a row id the screen has)
        (#""inserted":[{"index":2,"section":{"id":"s0","rows":[{"id":"a","kind":"basic","title":"x"}]}}]"#, ""),
    ])
    func inconsistentChangeSetsDoNotApply(sections: String, rows: String) throws {
        let old = try Self.screen([["a", "b", "c"], ["d"]])
        let changes = try Self.changes(sections: sections, rows: rows)
        let applied = try? changes.applyChecked(to: old)
        #expect(applied == nil, "applied to \(applied.map { $0.sections.map { $0.rows.map(\.id) } } as Any)")
    }

    @Test func aRowInsertedWithAKeptRowsIDDoesNotApply() throws {
        let old = try Self.screen([["a", "b", "c"]])
        let changes = try Self.changes(rows: #""inserted":[{"section":0,"row":3,"model":{"id":"a","kind":"basic","title":"dup"}}]"#)
        #expect(throws: ChangeSetError.self) { try changes.applyChecked(to: old) }
        #expect(changes.apply(to: old) == old, "apply leaves the screen as it was")
    }

    /// A section's update gives its header and footer, `null` for none: one left out is not
    /// read as a removal.
    @Test(arguments: ["header", "footer"])
    func aSectionUpdateWithoutItsHeaderOrFooterDoesNotDecode(missing: String) throws {
        let members = ["header", "footer"].filter { $0 != missing }.map { #""\#($0)":null"# }.joined(separator: ",")
        #expect {
            try Self.changes(sections: #""updated":[{"from":0,"to":0,\#(members)}]"#)
        } throws: { error in
            (error as? WireFormatError)?.problem == .missingField(missing)
        }
    }

    /// A slider's or stepper's numbers that its control refuses do not decode.
    @Test(arguments: [
        (#""kind":"stepper","title":"n","value":5,"min":10,"max":0"#, "$.sections[0].rows[0].min", "min (10) is above max (0)"),
        (#""kind":"stepper","title":"n","value":1,"min":0,"max":5,"step":0"#, "$.sections[0].rows[0].step", "a stepper's step is above 0, not 0"),
        (#""kind":"slider","value":1,"min":0,"max":5,"step":-0.5"#, "$.sections[0].rows[0].step", "a slider's step is 0 (continuous) or above, not -0.5"),
        (#""kind":"slider","value":7,"min":0,"max":5"#, "$.sections[0].rows[0].value", "the value (7) is outside min…max (0…5)"),
        (#""kind":"stepper","title":"n","value":-1,"min":0,"max":5"#, "$.sections[0].rows[0].value", "the value (-1) is outside min…max (0…5)"),
    ])
    func numbersAControlRefusesDoNotDecode(fields: String, path: String, message: String) throws {
        let json = #"{"id":"x","title":"X","sections":[{"id":"s","rows":[{"id":"r",\#(fields)}]}]}"#
        #expect {
            try Screen(jsonBytes: Array(json.utf8))
        } throws: { error in
            (error as? WireFormatError)?.path == path && (error as? WireFormatError)?.message == message
        }
        // A continuous slider, a value on a bound, and one a rounding past it decode.
        for fine in [#""kind":"slider","value":5,"min":0,"max":5,"step":0"#, #""kind":"stepper","title":"n","value":5.0000000001,"min":0,"max":5"#] {
            #expect(throws: Never.self) {
                try Screen(jsonBytes: Array(#"{"id":"x","title":"X","sections":[{"id":"s","rows":[{"id":"r",\#(fine)}]}]}"#.utf8))
            }
        }
    }
}
