import TabulaModel

/// Where an update stands against the copy a client holds. Updates come from two places
/// (answers and the stream) and may cross: each is applied once, in revision order.
enum CopyOrder: Equatable {
    /// The copy has it already (or something newer): skip it.
    case held
    /// It starts from the copy: apply it.
    case next
    /// It starts from another copy: fetch the screen again instead.
    case gap

    static func place(_ update: CopyUpdate, after copy: Screen) -> CopyOrder {
        if update.toRevision < copy.revision { return .held }
        // A new definition keeps the revision: only the same definition is held.
        if update.toRevision == copy.revision, update.definition == copy.definition { return .held }
        return update.fromRevision == copy.revision ? .next : .gap
    }
}
