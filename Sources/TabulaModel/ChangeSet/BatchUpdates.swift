/// A change set in the order of `UITableView.performBatchUpdates`, as index lists a table
/// view takes directly.
///
/// Inside one `performBatchUpdates`, a table view reads deletions at the old indexes and
/// insertions at the new ones, whatever order the calls come in; moves name both. A reload
/// inside the batch would read old indexes and cannot touch a row that also moves, so the
/// rows and sections whose content changed are listed at their **new** indexes, to be
/// reconfigured once the batch is applied (`reconfigureRows(at:)`, or the visible cell
/// updated in place). That also keeps a cell the user is typing in: it is reconfigured,
/// never deleted and inserted.
///
/// The steps, in order:
/// 1. Set the data source's screen to the new screen (`changes.apply(to: screen)`).
/// 2. In one `performBatchUpdates`: delete `deletedSections` and `deletedRows`, insert
///    `insertedSections` and `insertedRows`, move `movedSections` and `movedRows`.
/// 3. After it: reconfigure `reconfiguredRows`, and redraw the header and footer of
///    `reconfiguredSections`; set the title and the style when they changed.
public struct BatchUpdates: Hashable, Sendable {
    /// Old indexes of the sections to delete, ascending.
    public var deletedSections: [Int] = []
    /// New indexes of the sections to insert (with all their rows), ascending.
    public var insertedSections: [Int] = []
    /// Sections that move, from their old index to their new one.
    public var movedSections: [SectionMove] = []
    /// Old paths of the rows to delete, ascending.
    public var deletedRows: [RowPath] = []
    /// New paths of the rows to insert, ascending.
    public var insertedRows: [RowPath] = []
    /// Rows that move, from their old path to their new one.
    public var movedRows: [RowMove] = []
    /// New paths of the kept rows whose content changed, ascending: reconfigure them after
    /// the batch.
    public var reconfiguredRows: [RowPath] = []
    /// New indexes of the kept sections whose header or footer changed, ascending.
    public var reconfiguredSections: [Int] = []

    public init() {}

    /// Whether the batch has no structural change (deletions, insertions, moves): a client
    /// may then skip `performBatchUpdates` and only reconfigure.
    public var isStructurallyEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && movedSections.isEmpty && deletedRows.isEmpty
            && insertedRows.isEmpty && movedRows.isEmpty
    }
}

extension ChangeSet {
    /// This change set as the index lists of one `performBatchUpdates` and the
    /// reconfigurations after it.
    public var batchUpdates: BatchUpdates {
        var batch = BatchUpdates()
        batch.deletedSections = sections.deleted
        batch.insertedSections = sections.inserted.map(\.index)
        batch.movedSections = sections.moved
        batch.deletedRows = rows.deleted
        batch.insertedRows = rows.inserted.map(\.path)
        batch.movedRows = rows.moved
        batch.reconfiguredRows = rows.updated.map(\.to)
        batch.reconfiguredSections = sections.updated.map(\.to)
        return batch
    }
}
