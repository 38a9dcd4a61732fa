public import TabulaCore

/// What a transaction writes: a new state, the event that led to it and its feed entry, or
/// only the answer to replay for an event id (an event that changed nothing), on the
/// condition that the session is still at `expectedRevision`.
public struct SessionCommit: Sendable {
    public var expectedRevision: Int
    /// The new state, whose revision is `expectedRevision + 1`, and what the feed says of
    /// it; `nil` when only an answer is stored.
    public var change: (state: SessionState, feed: FeedRecord)?
    public var event: EventRecord
    public var answer: StoredAnswer?
    /// The keys whose values differ between the state at `expectedRevision` and the new
    /// one, when whoever decided the commit knows them (a ``Reduction/changedKeys``);
    /// `nil`: a store that wants them compares the two states.
    public var changedKeys: [String]?

    public init(
        expectedRevision: Int, change: (state: SessionState, feed: FeedRecord)?, event: EventRecord, answer: StoredAnswer?,
        changedKeys: [String]? = nil
    ) {
        self.expectedRevision = expectedRevision
        self.change = change
        self.event = event
        self.answer = answer
        self.changedKeys = changedKeys
    }

    /// The new state, if the commit makes one.
    public var state: SessionState? { change?.state }
}

/// What became of a commit.
public enum CommitResult: Sendable, Equatable {
    case committed
    /// The session moved on, or an answer for the event id was stored meanwhile: nothing
    /// was written.
    case conflict
    case unknownSession
}

/// One entry of a session's append-only event log.
public struct EventRecord: Sendable, Equatable {
    public var eventID: String?
    /// "selection", "switch" or "deletion".
    public var kind: String
    /// The event as applied: `{"screen": ID, "row": ID, "isOn": BOOL?}`, canonical JSON.
    public var payload: [UInt8]
    /// The revision the event led to.
    public var revision: Int
    /// Unix time in milliseconds.
    public var time: Int64

    public init(eventID: String?, kind: String, payload: [UInt8], revision: Int, time: Int64) {
        self.eventID = eventID
        self.kind = kind
        self.payload = payload
        self.revision = revision
        self.time = time
    }
}

/// The first answer to an event with an id, replayed byte for byte on a retry.
public struct StoredAnswer: Sendable, Equatable {
    /// Identifies the request, so a different event reusing the id is told apart.
    public var fingerprint: [UInt8]
    public var status: Int
    public var body: [UInt8]
    /// Unix time in milliseconds.
    public var time: Int64

    public init(fingerprint: [UInt8], status: Int, body: [UInt8], time: Int64) {
        self.fingerprint = fingerprint
        self.status = status
        self.body = body
        self.time = time
    }
}
