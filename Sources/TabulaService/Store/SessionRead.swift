public import TabulaCore

/// What to read of a session besides its current state.
public struct SessionRead: Sendable, Equatable {
    /// A past (or the current) revision whose state to rebuild.
    public var revision: Int?
    /// An event id whose stored answer to look up, within the idempotency window.
    public var eventID: String?
    /// Whether to read the session's public id (``SessionSnapshot/id``).
    public var id: Bool

    public init(revision: Int? = nil, eventID: String? = nil, id: Bool = false) {
        self.revision = revision
        self.eventID = eventID
        self.id = id
    }
}

/// A session as one read found it.
public struct SessionSnapshot: Sendable {
    public var current: SessionState
    /// The state at the revision asked for (the current one when none was).
    public var past: RevisionLookup
    /// The answer stored for the event id asked for, if any is live.
    public var answer: StoredAnswer?
    /// The transaction's time by the store's clock, for what it commits.
    public var time: Milliseconds
    /// The session's public id, when the read asked for it.
    public var id: String?

    public init(current: SessionState, past: RevisionLookup, answer: StoredAnswer?, time: Milliseconds, id: String? = nil) {
        self.current = current
        self.past = past
        self.answer = answer
        self.time = time
        self.id = id
    }
}

/// The outcome of asking for a state at some revision.
public enum RevisionLookup: Sendable, Equatable {
    case found(SessionState)
    /// Older than the oldest revision the store keeps.
    case tooOld(oldestKept: Int)
    /// Newer than the session's current revision.
    case future(current: Int)
}
