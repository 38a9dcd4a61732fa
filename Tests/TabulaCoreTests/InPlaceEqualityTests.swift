import Testing

@testable import TabulaCore

/// `InPlaceEquality` answers as `==` does, for every pair of rows and sections drawn from
/// values that are equal but built apart, equal and sharing storage, or unequal: in payloads
/// of different enum cases (whose unused bytes may differ), in long and small strings, and in
/// dictionaries.
@Suite struct InPlaceEqualityTests {
    /// A string in storage of its own (too long to be a small string), built anew each call.
    static func built(_ text: String) -> String { String(repeating: "long text ", count: 2) + text }

    static func contents() -> [RowContent] {
        [
            .basic(title: "a"), .basic(title: built("a")), .basic(title: "b"),
            .subtitle(title: built("a"), subtitle: "s", image: nil), .subtitle(title: built("a"), subtitle: "s", image: built("i")),
            .titleSwitch(title: "a", isOn: true), .titleSwitch(title: "a", isOn: false), .checkmark(title: "a", isChecked: true),
            .empty, .button(title: built("a"), style: .destructive), .leftRightTitles(leftTitle: "a", rightTitle: built("b")),
            .custom(kind: "chart", fields: ["value": .number(1), "label": .string(built("x"))]),
            .custom(kind: "chart", fields: ["value": .number(2), "label": .string(built("x"))]),
        ]
    }

    static func rows() -> [Row] {
        var rows: [Row] = []
        for (index, content) in contents().enumerated() {
            rows.append(Row(id: index.isMultiple(of: 2) ? "r" : built("r"), content: content, selectable: index.isMultiple(of: 3), deletable: false))
        }
        rows.append(Row(id: "r", content: .basic(title: "a"), accessory: .checkmark, height: 44))
        rows.append(Row(id: "r", content: .basic(title: "a"), estimatedHeight: 44))
        return rows
    }

    @Test func rowsCompareAsEqualsDoes() {
        // Two separately built sets: equal values in different storage, and the same values.
        let first = Self.rows(), second = Self.rows()
        var compared = 0
        for (oldIndex, oldRow) in first.enumerated() {
            for (newIndex, newRow) in (first + second).enumerated() {
                let old = [Section(id: "s", rows: [oldRow])], new = [Section(id: "s", rows: [newRow])]
                let at = RowPath(section: 0, row: 0)
                #expect(InPlaceEquality.sameRow(old, at, new, at) == (oldRow == newRow), "rows \(oldIndex) and \(newIndex)")
                var changed: [Int] = []
                InPlaceEquality.forEachChangedRow(old, new, inSection: 0) { changed.append($0) }
                #expect(changed == (oldRow == newRow ? [] : [0]))
                #expect(InPlaceEquality.sameIdentities(old, new) == (oldRow.id == newRow.id))
                compared += 1
            }
        }
        #expect(compared == first.count * 2 * first.count)
    }

    @Test func headersAndFootersCompareAsEqualsDoes() {
        let headers: [HeaderFooter?] = [nil, .titleHeader(title: "h"), .titleHeader(title: Self.built("h")), .textFooter(text: Self.built("h"))]
        let sections = headers.flatMap { header in headers.map { footer in Section(id: Self.built("s"), header: header, footer: footer, rows: []) } }
        let others = headers.flatMap { header in headers.map { footer in Section(id: "t", header: header, footer: footer, rows: []) } }
        for oldIndex in sections.indices {
            for newIndex in others.indices {
                let expected = sections[oldIndex].header == others[newIndex].header && sections[oldIndex].footer == others[newIndex].footer
                #expect(InPlaceEquality.sameHeadersAndFooters(sections, oldIndex, others, newIndex) == expected)
            }
        }
    }
}
