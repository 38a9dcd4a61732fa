import PropertyBased
import TabulaCore
import Testing

/// `ChangeSet.batchUpdates` checked against a model of what `UITableView` does with one
/// `performBatchUpdates`: deletions at old indexes, insertions at new ones, moves naming
/// both, everything else kept in order; then reconfiguration at new paths.
@Suite struct BatchUpdatesTests {
    @Test func aTableViewGivenTheBatchShowsTheNewScreen() async {
        await propertyCheck(
            count: 200, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...300), Gen.int(in: 1...12), Gen.int(in: 0...60)
        ) { seed, rows, sections, intensity in
            var generator = ScreenPairGenerator(seed: seed, intensity: intensity)
            let (old, new) = generator.pair(rowCount: rows, sectionCount: sections)
            let batch = diff(old: old, new: new).batchUpdates
            let table = TableViewModel(old).performing(batch, newScreen: new)
            #expect(table.layout == TableViewModel(new).layout)
            // Every row whose content differs from the cell the table kept is reconfigured,
            // and nothing else is.
            var stale: [RowPath] = []
            for (sectionIndex, section) in table.cells.enumerated() {
                for (rowIndex, cell) in section.enumerated() where cell.row != new.sections[sectionIndex].rows[rowIndex] {
                    stale.append(RowPath(section: sectionIndex, row: rowIndex))
                }
            }
            #expect(stale == batch.reconfiguredRows)
            let staleSections = table.sectionModels.indices.filter { index in
                table.sectionModels[index].header != new.sections[index].header
                    || table.sectionModels[index].footer != new.sections[index].footer
            }
            #expect(staleSections == batch.reconfiguredSections)
        }
    }

    @Test func anEmptyChangeSetIsAnEmptyBatch() {
        var generator = ScreenPairGenerator(seed: 7, intensity: 0)
        let (old, _) = generator.pair(rowCount: 20, sectionCount: 3)
        let batch = diff(old: old, new: old).batchUpdates
        #expect(batch == BatchUpdates())
        #expect(batch.isStructurallyEmpty)
    }
}

/// The cells a table view holds: rows as they were drawn, sections' headers and footers.
private struct TableViewModel {
    struct Cell: Equatable {
        var row: Row
    }

    var sectionIDs: [String]
    var sectionModels: [Section]
    var cells: [[Cell]]

    init(_ screen: Screen) {
        sectionIDs = screen.sections.map(\.id)
        sectionModels = screen.sections
        cells = screen.sections.map { section in section.rows.map { Cell(row: $0) } }
    }

    var layout: [[String]] { zip(sectionIDs, cells).map { id, rows in [id] + rows.map(\.row.id) } }

    /// UIKit's reading of a batch: what is not deleted, inserted or moved keeps its relative
    /// order and fills the places the insertions and moves leave.
    func performing(_ batch: BatchUpdates, newScreen: Screen) -> TableViewModel {
        let sectionCount = sectionIDs.count - batch.deletedSections.count + batch.insertedSections.count
        var placedSections = [Int?](repeating: nil, count: sectionCount)  // old index, or nil when inserted
        var taken = Set(batch.insertedSections)
        for move in batch.movedSections {
            placedSections[move.to] = move.from
            taken.insert(move.to)
        }
        let movedOut = Set(batch.movedSections.map(\.from))
        var stayers = sectionIDs.indices.filter { !batch.deletedSections.contains($0) && !movedOut.contains($0) }.makeIterator()
        for index in 0..<sectionCount where !taken.contains(index) { placedSections[index] = stayers.next() }

        var result = self
        result.sectionIDs = []
        result.sectionModels = []
        result.cells = []
        for (newIndex, oldIndex) in placedSections.enumerated() {
            guard let oldIndex else {
                // An inserted section brings its rows.
                result.sectionIDs.append(newScreen.sections[newIndex].id)
                result.sectionModels.append(newScreen.sections[newIndex])
                result.cells.append(newScreen.sections[newIndex].rows.map { Cell(row: $0) })
                continue
            }
            result.sectionIDs.append(sectionIDs[oldIndex])
            result.sectionModels.append(sectionModels[oldIndex])
            let inserted = batch.insertedRows.filter { $0.section == newIndex }
            let movedIn = batch.movedRows.filter { $0.to.section == newIndex }
            let leaving = Set(batch.deletedRows + batch.movedRows.map(\.from))
            let staying = cells[oldIndex].indices.filter { !leaving.contains(RowPath(section: oldIndex, row: $0)) }
            let rowCount = staying.count + inserted.count + movedIn.count
            var placed = [Cell?](repeating: nil, count: rowCount)
            for path in inserted { placed[path.row] = Cell(row: newScreen.sections[newIndex].rows[path.row]) }
            for move in movedIn { placed[move.to.row] = cells[move.from.section][move.from.row] }
            var rest = staying.makeIterator()
            for index in 0..<rowCount where placed[index] == nil {
                if let old = rest.next() { placed[index] = cells[oldIndex][old] }
            }
            result.cells.append(placed.compactMap { $0 })
        }
        return result
    }
}
