/// Where a dragged item lands in its list. The user dropped its row among the rows of the
/// same `forEach` in the client's copy: the item then sits right after the item whose row
/// precedes it there, or, dropped first among those rows, right before the item whose row
/// follows it. Items the screen does not show (filtered out, hidden) keep their places.
struct ItemMove {
    let row: RowDefinition
    let rowID: String
    let item: Record
    let list: String

    /// The list after the move; unchanged for a drop at the row's own place. Throws when
    /// the drop is outside the rows of the same `forEach` in the same section.
    func reorder(_ records: [Record], seen copy: Screen, to destination: RowPath) throws(EventError) -> [Record] {
        guard let source = copy.path(ofRow: rowID) else {
            throw .invalidMove(row: rowID, reason: "the row is not on the copy of the screen the client sent the move from; fetch the screen again")
        }
        if source == destination { return records }
        guard let moved = copy.moving(row: rowID, to: destination) else {
            throw .invalidMove(
                row: rowID,
                reason: destination.section == source.section
                    ? "\(destination) is past the end of its section" : "\(destination) is in another section; a row moves within its list's rows")
        }
        let rows = moved.sections[destination.section].rows
        let before = destination.row > 0 ? itemID(ofRow: rows[destination.row - 1].id) : nil
        let after = destination.row + 1 < rows.count ? itemID(ofRow: rows[destination.row + 1].id) : nil
        guard before != nil || after != nil else {
            throw .invalidMove(row: rowID, reason: "\(destination) is outside the rows of \"\(list)\" in its section")
        }
        var result = records.filter { $0.id != item.id }
        if let before, let index = result.firstIndex(where: { $0.id == before }) {
            result.insert(item, at: index + 1)
        } else if let after, let index = result.firstIndex(where: { $0.id == after }) {
            result.insert(item, at: index)
        } else {
            // The neighbours the user saw have left the list since: nothing to place it by.
            return records
        }
        return result
    }

    /// The item id in a row id the same `forEach` row gives, or `nil` for another row's.
    private func itemID(ofRow id: String) -> String? {
        row.itemIDPattern?.itemID(in: id)
    }
}
