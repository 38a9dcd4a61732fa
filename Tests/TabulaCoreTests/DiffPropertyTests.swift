import PropertyBased
import TabulaCore
import Testing

@Suite struct DiffPropertyTests {
    static let seeds = Gen.uint64(in: 0...UInt64.max)
    static let rowCounts = Gen.int(in: 0...2_000)
    static let sectionCounts = Gen.int(in: 1...40)
    static let intensities = Gen.int(in: 0...30)

    @Test func applyingTheDiffGivesTheNewScreen() async {
        await propertyCheck(count: 150, input: Self.seeds, Self.rowCounts, Self.sectionCounts, Self.intensities) {
            seed, rows, sections, intensity in
            var generator = ScreenPairGenerator(seed: seed, intensity: intensity)
            let (old, new) = generator.pair(rowCount: rows, sectionCount: sections)
            let changes = diff(old: old, new: new)
            #expect((try? changes.applyChecked(to: old)) == new)
            #expect(diff(old: old, new: old).isEmpty)
            #expect(diff(old: new, new: new).isEmpty)
            checkIdentityRules(old: old, new: new, changes: changes)
            checkMinimalMoves(old: old, new: new, changes: changes)
            // The wire form decodes to the same change set, so a client applies the same thing.
            #expect((try? ChangeSet(jsonBytes: changes.jsonBytes)) == changes)
        }
    }

    @Test func smallScreensWithHeavyEdits() async {
        await propertyCheck(count: 300, input: Self.seeds, Gen.int(in: 0...12), Gen.int(in: 1...4), Gen.int(in: 20...90)) {
            seed, rows, sections, intensity in
            var generator = ScreenPairGenerator(seed: seed, intensity: intensity)
            let (old, new) = generator.pair(rowCount: rows, sectionCount: sections)
            let changes = diff(old: old, new: new)
            #expect(changes.apply(to: old) == new)
            checkIdentityRules(old: old, new: new, changes: changes)
            checkMinimalMoves(old: old, new: new, changes: changes)
        }
    }
}

extension DiffPropertyTests {
    /// A pinned row (one the user dropped) is left where it is whenever a change set with
    /// the fewest moves can leave it, and the change set stays minimal and correct.
    @Test func aPinnedRowStaysWhenTheFewestMovesAllow() async {
        await propertyCheck(count: 300, input: Self.seeds, Gen.int(in: 1...12), Gen.int(in: 1...3), Gen.int(in: 20...90)) {
            seed, rows, sections, intensity in
            var generator = ScreenPairGenerator(seed: seed, intensity: intensity)
            let (old, new) = generator.pair(rowCount: rows, sectionCount: sections)
            let oldPlaces = placements(old)
            // The rows that stay in their section, the candidates to pin.
            var candidates: [(sectionIndex: Int, id: String)] = []
            for (sectionIndex, section) in new.sections.enumerated() {
                for row in section.rows {
                    if let place = oldPlaces[row.id], place.sectionID == section.id, place.kind == row.kind {
                        candidates.append((sectionIndex, row.id))
                    }
                }
            }
            guard !candidates.isEmpty else { return }
            let (sectionIndex, pinned) = candidates[Int(seed % UInt64(candidates.count))]
            let changes = diff(old: old, new: new, keeping: pinned)
            #expect(changes.apply(to: old) == new)
            checkIdentityRules(old: old, new: new, changes: changes)
            checkMinimalMoves(old: old, new: new, changes: changes)
            // Can a longest run of rows in order hold the pinned one?
            var sameSectionOld: [Int] = []
            var pinnedOld = -1
            for row in new.sections[sectionIndex].rows {
                guard let place = oldPlaces[row.id], place.sectionID == new.sections[sectionIndex].id, place.kind == row.kind else { continue }
                if row.id == pinned { pinnedOld = sameSectionOld.count }
                sameSectionOld.append(place.path.row)
            }
            let pinnedValue = sameSectionOld[pinnedOld]
            let through =
                longestIncreasingLength(sameSectionOld.prefix(pinnedOld).filter { $0 < pinnedValue }) + 1
                + longestIncreasingLength(sameSectionOld.suffix(from: pinnedOld + 1).filter { $0 > pinnedValue })
            let pinnedMoved = changes.rows.moved.contains { move in new.sections[move.to.section].rows[move.to.row].id == pinned }
            #expect(pinnedMoved == (through < longestIncreasingLength(sameSectionOld)))
        }
    }
}

/// Where each row sits in a screen: its section's id and index, its row index, its kind.
private struct Placement {
    var sectionID: String
    var path: RowPath
    var kind: String
}

private func placements(_ screen: Screen) -> [String: Placement] {
    var result: [String: Placement] = [:]
    for (sectionIndex, section) in screen.sections.enumerated() {
        for (rowIndex, row) in section.rows.enumerated() {
            result[row.id] = Placement(sectionID: section.id, path: RowPath(section: sectionIndex, row: rowIndex), kind: row.kind)
        }
    }
    return result
}

/// The identity rules: a kept section or row is never deleted and inserted (except a row
/// travelling with a deleted or inserted section); a row is kept when its id and kind are;
/// `updated` is exactly the kept items whose content changed; every kept row that changed
/// section is moved; lists are sorted.
func checkIdentityRules(old: Screen, new: Screen, changes: ChangeSet) {
    let oldSectionIDs = Set(old.sections.map(\.id))
    let newSectionIDs = Set(new.sections.map(\.id))
    let deletedSectionIDs = Set(changes.sections.deleted.map { old.sections[$0].id })
    let insertedSectionIDs = Set(changes.sections.inserted.map(\.section.id))
    #expect(deletedSectionIDs == oldSectionIDs.subtracting(newSectionIDs))
    #expect(insertedSectionIDs == newSectionIDs.subtracting(oldSectionIDs))

    let oldPlaces = placements(old)
    let newPlaces = placements(new)
    let deletedRowIDs = changes.rows.deleted.compactMap { old.row(at: $0)?.id }
    let insertedRowIDs = changes.rows.inserted.map(\.row.id)
    #expect(deletedRowIDs.count == changes.rows.deleted.count)
    for id in deletedRowIDs {
        guard let oldPlace = oldPlaces[id] else { continue }
        #expect(newSectionIDs.contains(oldPlace.sectionID), "a row of a deleted section is listed")
        if let newPlace = newPlaces[id], newPlace.kind == oldPlace.kind {
            #expect(!oldSectionIDs.contains(newPlace.sectionID), "kept row \(id) deleted though its new section is kept")
        }
    }
    for id in insertedRowIDs {
        guard let newPlace = newPlaces[id] else { continue }
        #expect(oldSectionIDs.contains(newPlace.sectionID), "a row of an inserted section is listed")
        if let oldPlace = oldPlaces[id], oldPlace.kind == newPlace.kind {
            #expect(!newSectionIDs.contains(oldPlace.sectionID), "kept row \(id) inserted though its old section is kept")
        }
    }

    var expectedUpdates: [RowPath] = []
    var expectedCrossSectionMoves: Set<String> = []
    for (sectionIndex, section) in new.sections.enumerated() where oldSectionIDs.contains(section.id) {
        for (rowIndex, row) in section.rows.enumerated() {
            guard let oldPlace = oldPlaces[row.id], newSectionIDs.contains(oldPlace.sectionID), oldPlace.kind == row.kind else { continue }
            if old.row(at: oldPlace.path) != row { expectedUpdates.append(RowPath(section: sectionIndex, row: rowIndex)) }
            if oldPlace.sectionID != section.id { expectedCrossSectionMoves.insert(row.id) }
        }
    }
    #expect(changes.rows.updated.map(\.to) == expectedUpdates)
    let movedIDs = Set(changes.rows.moved.compactMap { new.row(at: $0.to)?.id })
    #expect(expectedCrossSectionMoves.isSubset(of: movedIDs))

    let expectedSectionUpdates = new.sections.enumerated().compactMap { newIndex, section -> Int? in
        guard let oldSection = old.sections.first(where: { $0.id == section.id }) else { return nil }
        return oldSection.header != section.header || oldSection.footer != section.footer ? newIndex : nil
    }
    #expect(changes.sections.updated.map(\.to) == expectedSectionUpdates)

    #expect(changes.sections.deleted == changes.sections.deleted.sorted())
    #expect(changes.sections.inserted.map(\.index) == changes.sections.inserted.map(\.index).sorted())
    #expect(changes.sections.moved.map(\.to) == changes.sections.moved.map(\.to).sorted())
    #expect(changes.rows.deleted == changes.rows.deleted.sorted())
    #expect(changes.rows.inserted.map(\.path) == changes.rows.inserted.map(\.path).sorted())
    #expect(changes.rows.moved.map(\.to) == changes.rows.moved.map(\.to).sorted())
}

/// Length of a longest strictly increasing subsequence, by the textbook tails-of-values
/// method (independent of the diff's own index-tracking implementation).
func longestIncreasingLength(_ values: [Int]) -> Int {
    var tails: [Int] = []
    for value in values {
        var low = 0
        var high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if tails[middle] < value { low = middle + 1 } else { high = middle }
        }
        if low == tails.count { tails.append(value) } else { tails[low] = value }
    }
    return tails.count
}

/// Moves are minimal: the kept items that are not reported as moved keep their relative
/// order, and there are as many of them as a longest increasing subsequence allows.
func checkMinimalMoves(old: Screen, new: Screen, changes: ChangeSet) {
    let oldSectionIndex = Dictionary(uniqueKeysWithValues: old.sections.enumerated().map { ($1.id, $0) })
    let movedSections = Set(changes.sections.moved.map(\.to))
    let keptSectionOld = new.sections.compactMap { oldSectionIndex[$0.id] }
    let stayingSections = new.sections.enumerated().compactMap { newIndex, section -> Int? in
        movedSections.contains(newIndex) ? nil : oldSectionIndex[section.id]
    }
    #expect(stayingSections == stayingSections.sorted())
    #expect(stayingSections.count == longestIncreasingLength(keptSectionOld))

    let oldPlaces = placements(old)
    let movedRows = Set(changes.rows.moved.map(\.to))
    for (sectionIndex, section) in new.sections.enumerated() where oldSectionIndex[section.id] != nil {
        var sameSectionOld: [Int] = []
        var staying: [Int] = []
        for (rowIndex, row) in section.rows.enumerated() {
            guard let place = oldPlaces[row.id], place.sectionID == section.id, place.kind == row.kind else { continue }
            sameSectionOld.append(place.path.row)
            if !movedRows.contains(RowPath(section: sectionIndex, row: rowIndex)) { staying.append(place.path.row) }
        }
        #expect(staying == staying.sorted())
        #expect(staying.count == longestIncreasingLength(sameSectionOld))
    }
}
