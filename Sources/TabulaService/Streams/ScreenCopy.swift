import TabulaCore

/// The screen a client holds: rendered by a definition, at a revision of its session.
struct ScreenCopy: Sendable {
    let definitionID: String
    let revision: Int
    let screen: Screen

    /// The id of the event after which a client holds this copy: `DEFINITION:REVISION`,
    /// what it sends back as `Last-Event-ID` when it reconnects.
    var eventID: String { "\(definitionID):\(revision)" }

    /// Whether this is exactly `other`'s copy.
    func isSame(as other: ScreenCopy) -> Bool {
        definitionID == other.definitionID && revision == other.revision
    }
}
