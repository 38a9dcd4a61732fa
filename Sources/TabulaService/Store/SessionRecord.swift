public import TabulaCore

/// A session as the backend sees it.
public struct SessionRecord: Sendable, Equatable {
    public var id: String
    public var subject: String?
    /// The current state, with its revision.
    public var state: SessionState
    /// Unix time in milliseconds.
    public var createdAt: Milliseconds
    /// The last use the store recorded, in Unix milliseconds: a client's read or event.
    /// Stores record reads coarsely (see ``SessionStore/touch(session:watch:)``).
    public var lastUsedAt: Milliseconds

    public init(id: String, subject: String?, state: SessionState, createdAt: Milliseconds, lastUsedAt: Milliseconds) {
        self.id = id
        self.subject = subject
        self.state = state
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
