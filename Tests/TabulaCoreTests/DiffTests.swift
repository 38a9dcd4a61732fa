import TabulaCore
import Testing

func path(_ section: Int, _ row: Int) -> RowPath { RowPath(section: section, row: row) }

@Suite struct DiffTests {
    /// Diffs, checks the change set applies, and returns it.
    func changes(_ old: Screen, _ new: Screen) throws -> ChangeSet {
        let changes = diff(old: old, new: new)
        #expect(try changes.applyChecked(to: old) == new)
        return changes
    }

    @Test func identicalScreensGiveAnEmptyChangeSet() throws {
        let sample = screen([section("a", ["1", "2"]), section("b", ["3"])])
        let changes = try changes(sample, sample)
        #expect(changes.isEmpty)
        #expect(
            text(changes.jsonBytes)
                == #"{"rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}"#)
    }

    /// A section whose rows share storage with the old screen's (what the incremental render
    /// takes over) is skipped; the same rows in storage of their own are compared.
    @Test func rowsSharedWithTheOldScreenAreSkippedAndCopiesCompared() throws {
        let old = screen([section("a", ["1", "2"]), section("b", ["3", "4"])])
        var edited = old
        edited.sections[1].rows[1].content = .basic(title: "changed")
        let shared = try changes(old, edited)
        #expect(shared.rows.updated.map(\.to) == [path(1, 1)])
        var rebuilt = edited
        rebuilt.sections[0].rows = edited.sections[0].rows.map { $0 }
        rebuilt.sections[0].rows.reserveCapacity(8)
        #expect(try changes(old, rebuilt) == shared)
        var editedCopy = rebuilt
        editedCopy.sections[0].rows[0].content = .basic(title: "also changed")
        #expect(try changes(old, editedCopy).rows.updated.map(\.to) == [path(0, 0), path(1, 1)])
    }

    /// The diff compares rows field by field where they lie (no copies): a row that differs
    /// in any one stored property is an update. A new property of `Row` must join
    /// `InPlaceEquality.rows`, and the count below.
    @Test func aRowDifferingInAnyFieldIsUpdated() throws {
        let base = Row(id: "r", content: .basic(title: "T"), selectable: false, deletable: false)
        #expect(Mirror(reflecting: base).children.count == 14, "Row changed: update InPlaceEquality.rows and this test")
        var variants: [Row] = []
        for index in 0..<13 {
            var row = base
            switch index {
            case 0: row.content = .basic(title: "U")
            case 1: row.selectable = true
            case 2: row.deletable = true
            case 3: row.accessory = .checkmark
            case 5: row.enabled = false
            case 6: row.editable = true
            case 7: row.error = "Enter a value"
            case 8: row.height = 44
            case 9: row.movable = true
            case 10: row.leadingActions = [SwipeAction(id: "flag", title: "Flag")]
            case 11: row.trailingActions = [SwipeAction(id: "archive", title: "Archive", style: .destructive)]
            case 12: row.accessibility.hint = "Opens the message"
            default: row.estimatedHeight = 44
            }
            variants.append(row)
        }
        for variant in variants {
            let changes = try changes(screen([Section(id: "a", rows: [base])]), screen([Section(id: "a", rows: [variant])]))
            #expect(changes.rows.updated.count == 1)
        }
        // Moved rows take the general path and compare the same way.
        let moved = try changes(
            screen([Section(id: "a", rows: [base, Row(id: "x", content: .empty, selectable: false, deletable: false)])]),
            screen([Section(id: "a", rows: [Row(id: "x", content: .empty, selectable: false, deletable: false), variants[12]])]))
        #expect(moved.rows.updated.count == 1 && moved.rows.moved.count == 1)
    }

    /// Rows and sections are compared in place: identical bytes answer at once, anything
    /// else by value. Equal values built apart (strings in storage of their own, beyond the
    /// 15 bytes that fit in a small string) are not updates; unequal ones are, whether the
    /// identities are the same (the content-only path) or rows moved (the general path).
    @Test func valuesBuiltApartCompareByValue() throws {
        func long(_ text: String) -> String { String(repeating: "long text ", count: 3) + text }
        func row(_ id: String, _ title: String) -> Row {
            Row(id: long(id), content: .subtitle(title: long(title), subtitle: long("s"), image: nil), accessory: .checkmark, height: 44)
        }
        func sample(_ title: String, footer: String, order: [String]) -> Screen {
            Screen(
                id: "s", title: "S",
                sections: [
                    Section(
                        id: long("a"), header: .titleHeader(title: long("h")), footer: .textFooter(text: long(footer)),
                        rows: order.map { row($0, $0 == "2" ? title : "same") })
                ])
        }
        let old = sample("before", footer: "f", order: ["1", "2", "3"])
        #expect(try changes(old, sample("before", footer: "f", order: ["1", "2", "3"])).isEmpty)
        let edited = try changes(old, sample("after", footer: "g", order: ["1", "2", "3"]))
        #expect(edited.rows.updated.map(\.to) == [path(0, 1)] && edited.sections.updated.map(\.to) == [0])
        let moved = try changes(old, sample("after", footer: "f", order: ["3", "1", "2"]))
        #expect(moved.rows.updated.map(\.to) == [path(0, 2)] && moved.rows.moved.count == 1 && moved.sections.updated.isEmpty)
        #expect(Mirror(reflecting: old.sections[0]).children.count == 4, "Section changed: update InPlaceEquality and this test")
    }

    /// ASCII ids take a byte-hashed table; others keep String's canonical equality, so a
    /// composed and a decomposed "café" are the same row, and a moved ASCII row is a move.
    @Test func idsMatchAsStringsDoWhateverTheirBytes() throws {
        let composed = try changes(screen([section("a", ["x", "caf\u{E9}"])]), screen([section("a", ["cafe\u{301}", "x"])]))
        #expect(composed.rows.inserted.isEmpty && composed.rows.deleted.isEmpty && composed.rows.moved.count == 1)
        let ascii = try changes(screen([section("a", ["r1", "r2", "r3"])]), screen([section("a", ["r3", "r1", "r2", "r4"])]))
        #expect(ascii.rows.moved.map(\.from) == [path(0, 2)] && ascii.rows.inserted.map(\.path) == [path(0, 3)])
    }

    @Test func rowInsertionUsesNewIndexes() throws {
        let changes = try changes(screen([section("a", ["1", "3"])]), screen([section("a", ["0", "1", "2", "3"])]))
        #expect(changes.rows.inserted.map(\.path) == [path(0, 0), path(0, 2)])
        #expect(changes.rows.inserted.map(\.row.id) == ["0", "2"])
        #expect(changes.rows.deleted.isEmpty && changes.rows.moved.isEmpty && changes.rows.updated.isEmpty)
    }

    @Test func rowDeletionUsesOldIndexes() throws {
        let changes = try changes(screen([section("a", ["1", "2", "3"])]), screen([section("a", ["2"])]))
        #expect(changes.rows.deleted == [path(0, 0), path(0, 2)])
        #expect(changes.rows.inserted.isEmpty && changes.rows.moved.isEmpty)
    }

    @Test func rowMoveWithinSectionIsMinimal() throws {
        // Only "5" left its place; every other row kept its relative order.
        let changes = try changes(
            screen([section("a", ["1", "2", "3", "4", "5"])]), screen([section("a", ["5", "1", "2", "3", "4"])]))
        #expect(changes.rows.moved == [RowMove(from: path(0, 4), to: path(0, 0))])
        #expect(changes.rows.deleted.isEmpty && changes.rows.inserted.isEmpty)
    }

    @Test func rowsShiftedByInsertionsAreNotMoves() throws {
        let changes = try changes(
            screen([section("a", ["1", "2", "3"])]), screen([section("a", ["new", "1", "2", "other", "3"])]))
        #expect(changes.rows.moved.isEmpty)
        #expect(changes.rows.inserted.map(\.path) == [path(0, 0), path(0, 3)])
    }

    @Test func rowMoveAcrossSectionsUsesOldAndNewPaths() throws {
        let changes = try changes(
            screen([section("a", ["1", "2"]), section("b", ["3"])]), screen([section("a", ["1"]), section("b", ["2", "3"])]))
        #expect(changes.rows.moved == [RowMove(from: path(0, 1), to: path(1, 0))])
        #expect(changes.rows.deleted.isEmpty && changes.rows.inserted.isEmpty)
    }

    /// A row the user dropped stays put when a change set with as few moves allows it: from
    /// a copy with b dropped after e (a c d e b f) to the server's a e b c d f, moving c and
    /// d rather than e and b.
    @Test func aDroppedRowStaysWhenAsFewMovesAllow() throws {
        let copy = screen([section("a", ["a", "c", "d", "e", "b", "f"])])
        let server = screen([section("a", ["a", "e", "b", "c", "d", "f"])])
        let unpinned = diff(old: copy, new: server)
        let pinned = diff(old: copy, new: server, keeping: "b")
        #expect(pinned.apply(to: copy) == server)
        #expect(pinned.rows.moved.count == unpinned.rows.moved.count)
        #expect(pinned.rows.moved.map(\.from) == [path(0, 1), path(0, 2)], "c and d move")
        // Fewer moves come first: f dropped last, then moved first by another device, moves.
        let forced = diff(
            old: screen([section("a", ["a", "b", "c", "f"])]), new: screen([section("a", ["f", "a", "b", "c"])]), keeping: "f")
        #expect(forced.rows.moved == [RowMove(from: path(0, 3), to: path(0, 0))])
    }

    @Test func rowUpdateCarriesTheNewModelAndBothPaths() throws {
        var new = screen([section("a", ["0", "1", "2"])])
        new.sections[0].rows[2] = Row(id: "2", content: .basic(title: "Two"), selectable: true)
        let changes = try changes(screen([section("a", ["1", "2"])]), new)
        #expect(changes.rows.updated == [RowUpdate(from: path(0, 1), to: path(0, 2), row: new.sections[0].rows[2])])
        #expect(changes.rows.moved.isEmpty)
    }

    /// Another kind is another cell (a table view cannot reconfigure a cell into another
    /// class), so a row whose kind changed is deleted and inserted, never updated.
    @Test func aRowThatChangesKindIsReplaced() throws {
        var sameLayout = screen([section("a", ["1", "2"])])
        sameLayout.sections[0].rows[1] = Row(id: "2", content: .titleSwitch(title: "Two", isOn: true))
        let inPlace = try changes(screen([section("a", ["1", "2"])]), sameLayout)
        #expect(inPlace.rows.deleted == [path(0, 1)])
        #expect(inPlace.rows.inserted == [RowInsertion(path: path(0, 1), row: sameLayout.sections[0].rows[1])])
        #expect(inPlace.rows.updated.isEmpty && inPlace.rows.moved.isEmpty)

        var moved = screen([section("a", ["0", "1"]), section("b", ["2"])])
        moved.sections[1].rows[0] = Row(id: "2", content: .checkmark(title: "Two", isChecked: false))
        let elsewhere = try changes(screen([section("a", ["2", "1"]), section("b", [])]), moved)
        #expect(elsewhere.rows.deleted == [path(0, 0)])
        #expect(elsewhere.rows.inserted.map(\.path) == [path(0, 0), path(1, 0)])
        #expect(elsewhere.rows.moved.isEmpty && elsewhere.rows.updated.isEmpty)
    }

    @Test func rowCanBeMovedAndUpdated() throws {
        let new = screen([Section(id: "a", rows: [basicRow("2"), basicRow("1", "changed")])])
        let changes = try changes(screen([section("a", ["1", "2"])]), new)
        #expect(changes.rows.moved.count == 1)
        #expect(changes.rows.updated == [RowUpdate(from: path(0, 0), to: path(0, 1), row: basicRow("1", "changed"))])
    }

    @Test func flagsAndLayoutChangesAreUpdates() throws {
        var new = screen([section("a", ["1", "2", "3"])])
        new.sections[0].rows[0].selectable = true
        new.sections[0].rows[1].accessory = .checkmark
        new.sections[0].rows[2].height = 60
        let changes = try changes(screen([section("a", ["1", "2", "3"])]), new)
        #expect(changes.rows.updated.map(\.to) == [path(0, 0), path(0, 1), path(0, 2)])
    }

    @Test func sectionInsertionCarriesItsRows() throws {
        let new = screen([section("a", ["1"]), section("b", ["2", "3"])])
        let changes = try changes(screen([section("a", ["1"])]), new)
        #expect(changes.sections.inserted == [SectionInsertion(index: 1, section: new.sections[1])])
        #expect(changes.rows.isEmpty)
    }

    @Test func sectionDeletionTakesItsRows() throws {
        let changes = try changes(screen([section("a", ["1"]), section("b", ["2", "3"])]), screen([section("b", ["2", "3"])]))
        #expect(changes.sections.deleted == [0])
        #expect(changes.rows.isEmpty)
        #expect(changes.sections.moved.isEmpty)
    }

    @Test func sectionMoveIsMinimal() throws {
        let changes = try changes(
            screen([section("a", []), section("b", []), section("c", []), section("d", [])]),
            screen([section("b", []), section("c", []), section("d", []), section("a", [])]))
        #expect(changes.sections.moved == [SectionMove(from: 0, to: 3)])
    }

    @Test func rowsInAMovedSectionStayPut() throws {
        let changes = try changes(
            screen([section("a", ["1", "2"]), section("b", ["3"])]), screen([section("b", ["3"]), section("a", ["1", "2"])]))
        #expect(changes.sections.moved.count == 1)
        #expect(changes.rows.isEmpty)
    }

    @Test func headerAndFooterChangesAreSectionUpdates() throws {
        var new = screen([section("a", ["1"], header: "New"), section("b", ["2"])])
        new.sections[1].footer = .textFooter(text: "Footnote")
        let changes = try changes(screen([section("a", ["1"], header: "Old"), section("b", ["2"])]), new)
        #expect(
            changes.sections.updated == [
                SectionUpdate(from: 0, to: 0, header: .titleHeader(title: "New"), footer: nil),
                SectionUpdate(from: 1, to: 1, header: nil, footer: .textFooter(text: "Footnote")),
            ])
        #expect(text(changes.jsonBytes).contains(#"{"footer":null,"from":0,"header":{"kind":"titleHeader","title":"New"},"to":0}"#))
    }

    @Test func rowOfADeletedSectionIsInsertedWhereItGoes() throws {
        let changes = try changes(screen([section("a", ["1"]), section("b", ["2"])]), screen([section("b", ["2", "1"])]))
        #expect(changes.sections.deleted == [0])
        #expect(changes.rows.inserted.map(\.row.id) == ["1"])
        #expect(changes.rows.moved.isEmpty)
    }

    @Test func rowOfAnInsertedSectionTravelsWithIt() throws {
        let new = screen([section("a", ["1"]), section("c", ["2"])])
        let changes = try changes(screen([section("a", ["1", "2"])]), new)
        #expect(changes.rows.deleted == [path(0, 1)])
        #expect(changes.sections.inserted == [SectionInsertion(index: 1, section: new.sections[1])])
        #expect(changes.rows.moved.isEmpty && changes.rows.inserted.isEmpty)
    }

    @Test func titleAndStyleChangesAreReported() throws {
        var old = screen([section("a", ["1"])], title: "Before")
        old.style = .grouped
        var new = screen([section("a", ["1"])], title: "After")
        new.style = nil
        let changes = try changes(old, new)
        #expect(changes.title == "After")
        #expect(changes.style == StyleChange(nil))
        #expect(text(changes.jsonBytes).hasSuffix(#""style":null,"title":"After"}"#))
    }

    @Test func duplicateIDsStillGiveAChangeSetThatApplies() throws {
        let old = screen([section("a", ["x", "x", "y"]), section("a", ["z"])])
        let new = screen([section("a", ["y", "x"]), section("b", ["x", "z", "z"])])
        _ = try changes(old, new)
    }

    @Test func emptyScreens() throws {
        #expect(try changes(screen([]), screen([])).isEmpty)
        let full = screen([section("a", ["1"])])
        #expect(try changes(screen([]), full).sections.inserted.count == 1)
        #expect(try changes(full, screen([])).sections.deleted == [0])
    }
}

@Suite struct ApplyTests {
    @Test func aChangeSetForAnotherScreenIsRejectedWithAReason() {
        let base = screen([section("a", ["1"])])
        var changes = ChangeSet()
        changes.rows.deleted = [path(0, 5)]
        #expect(throws: ChangeSetError("deleted row [0, 5] is not in the screen")) { try changes.applyChecked(to: base) }
        #expect(changes.apply(to: base) == base)

        var pastEnd = ChangeSet()
        pastEnd.rows.inserted = [RowInsertion(path: path(0, 3), row: basicRow("9"))]
        #expect(throws: ChangeSetError.self) { try pastEnd.applyChecked(to: base) }

        var missingSection = ChangeSet()
        missingSection.sections.moved = [SectionMove(from: 2, to: 0)]
        #expect(throws: ChangeSetError.self) { try missingSection.applyChecked(to: base) }

        var rowsOfDeleted = ChangeSet()
        rowsOfDeleted.sections.deleted = [0]
        rowsOfDeleted.rows.deleted = [path(0, 0)]
        #expect(throws: ChangeSetError.self) { try rowsOfDeleted.applyChecked(to: base) }
    }
}
