public import TabulaCore

/// Where sessions live: their current state, enough history to rebuild recent revisions,
/// an append-only event log and the answers of events sent with an `eventId`.
///
/// A store offers storage operations; what an event does is the service's (see
/// `SessionTransaction.swift`). It reads a session with ``read(session:_:completion:)`` and writes
/// with ``commit(session:_:completion:)``, a compare-and-swap on the session's revision:
/// when another writer got there first, it reads again and decides anew. Every operation
/// reports through a completion handler: a store may call it before returning (memory) or
/// later, once a commit is durable (SQLite, PostgreSQL); the HTTP layer parks the request
/// meanwhile.
public protocol SessionStore: Sendable {
    /// Stores a new session at revision 0, with its `created` feed entry; `completion` runs
    /// once it is durable. The durable stores keep the token's digest (``TokenDigest``),
    /// never the token.
    func createSession(_ session: NewSession, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)

    /// The session with this public id, for the backend; `nil` when there is none. Does not
    /// count as use of the session.
    func sessionRecord(id: String, completion: @escaping @Sendable (Result<SessionRecord?, StoreError>) -> Void)

    /// Removes the session with this public id, its log and its answers, and writes its
    /// `deleted` feed entry; `false` when there was none. Its token is unknown from then on,
    /// on every instance.
    func deleteSession(id: String, completion: @escaping @Sendable (Result<Bool, StoreError>) -> Void)

    /// Reads a session: its current state, and what `request` asks besides (a past state,
    /// the answer stored for an event id). `nil` when the session does not exist. A read by
    /// token counts as use of the session; the backend's, by id, does not.
    func read(
        session name: SessionName, _ request: SessionRead,
        completion: @escaping @Sendable (Result<SessionSnapshot?, StoreError>) -> Void)

    /// Writes `commit` (with its feed entry, when it has one) if the session is still at its
    /// expected revision and, when it stores
    /// an event id's answer, no live answer for that id is stored: otherwise nothing is
    /// written and the result is ``CommitResult/conflict``. Durable before `completion` runs;
    /// group-committed where the store can (SQLite).
    func commit(
        session name: SessionName, _ commit: SessionCommit,
        completion: @escaping @Sendable (Result<CommitResult, StoreError>) -> Void)

    /// The session's current state and its watch when the store knows them without waiting
    /// (memory, or a SQLite cache hit); `nil` means "ask with ``read(session:_:completion:)``".
    /// Counts as use of the session. PostgreSQL always answers `nil`: another instance may
    /// have written.
    func currentStateIfCached(session key: SessionKey) -> WatchedState?

    /// Counts a read answered from a cache that `watch` vouches for as use of the session.
    /// Cheap when the session was used recently: it then writes nothing.
    func touch(session key: SessionKey, watch: SessionWatch)

    /// Keeps the documents of the definitions the service is about to serve, so that any
    /// instance, now or after a restart, can render a screen with them (each is recorded as
    /// served now); then removes each of their screens' versions beyond the newest
    /// ``StoreSettings/keepDefinitions``. Called before serving, and by each reload of the
    /// definitions while serving; returns once durable.
    func keepDefinitions(_ definitions: [KeptDefinition]) throws(StoreError)

    /// The kept definition with this id; `nil` when the store has none.
    func keptDefinition(id: String, completion: @escaping @Sendable (Result<KeptDefinition?, StoreError>) -> Void)

    /// The feed's entries after `after` (from the oldest kept when `nil`), oldest first, at
    /// most `limit`. Only entries whose changes committed are ever read, and an entry read
    /// once keeps its place: no entry that is not read yet comes before it.
    func readFeed(after: FeedCursor?, limit: Int, completion: @escaping @Sendable (Result<FeedPage, StoreError>) -> Void)

    /// The number of sessions, for metrics.
    func sessionCount() -> Int

    /// How often the bounds this store keeps (``StoreSettings/maxHistoryBytes``,
    /// ``StoreSettings/maxAnswersPerSession``, ``StoreSettings/stateCacheBytes``) took
    /// effect, for metrics.
    var limitCounts: LimitCounts { get }

    /// "memory", "sqlite" or "postgres".
    var name: String { get }

    /// Succeeds when the store can serve requests (for `/healthz`).
    func checkHealth(completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)

    /// One retention pass: removes `eventId` answers older than the idempotency TTL,
    /// sessions idle longer than the session TTL (with their log and answers, and a
    /// `deleted` feed entry each) and feed entries older than the feed retention; reports
    /// how many sessions it removed. Stores also run it every minute on their own.
    func removeExpired(completion: @escaping @Sendable (Result<Int, StoreError>) -> Void)

    /// Tells `observer`, from a thread of the store's, of the changes that other processes
    /// sharing the store commit (PostgreSQL). A store that one process owns (memory, SQLite)
    /// has none to tell: every commit is this process's own.
    func observeChanges(_ observer: @escaping @Sendable (StoreNotice) -> Void)

    /// Finishes queued work and releases the store; called after the server stopped.
    func close()
}

extension SessionStore {
    public func observeChanges(_ observer: @escaping @Sendable (StoreNotice) -> Void) {}
}

/// A change another process committed to a shared store.
public enum StoreNotice: Sendable, Equatable {
    /// The session with this public id is at this revision (or a later one).
    case changed(id: String, revision: Int)
    /// The session with this public id was deleted or expired.
    case removed(id: String)
    /// Notices may have been missed (the store's listening connection was lost, and is back):
    /// read again every session of interest.
    case resynchronize
}

/// How a request names a session: a client by its secret token, the app's backend by the
/// session's public id.
public enum SessionName: Sendable, Hashable {
    case token(String)
    case id(String)
}

/// A session about to be created.
public struct NewSession: Sendable {
    /// The secret the client sends in `X-Session` (``SessionToken``).
    public var token: String
    /// The public id the backend names the session by (``SessionID``).
    public var id: String
    /// The backend's name for the session's user, if it gave one.
    public var subject: String?
    public var state: SessionState

    public init(token: String, id: String, subject: String?, state: SessionState) {
        self.token = token
        self.id = id
        self.subject = subject
        self.state = state
    }
}

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

    public init(expectedRevision: Int, change: (state: SessionState, feed: FeedRecord)?, event: EventRecord, answer: StoredAnswer?) {
        self.expectedRevision = expectedRevision
        self.change = change
        self.event = event
        self.answer = answer
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

/// The outcome of asking for a state at some revision.
public enum RevisionLookup: Sendable, Equatable {
    case found(SessionState)
    /// Older than the oldest revision the store keeps.
    case tooOld(oldestKept: Int)
    /// Newer than the session's current revision.
    case future(current: Int)
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

/// Why the store could not do what was asked.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The store cannot be reached or refused for now: the API answers 503, and a
        /// retry may succeed.
        case unavailable
        /// What the store holds does not read back as what was written (a damaged page, a
        /// row that does not decode): the API answers 500 `store-corrupt` and writes
        /// nothing over it. Retrying will not help; restoring from a backup will.
        case corrupt
    }

    public var kind: Kind
    public var description: String

    public init(_ description: String, kind: Kind = .unavailable) {
        self.description = description
        self.kind = kind
    }

    public static func corrupt(_ description: String) -> StoreError {
        StoreError(description, kind: .corrupt)
    }
}

/// A definition as a store keeps it: its id, its screen and its document
/// (``DefinitionDocument``).
public struct KeptDefinition: Sendable, Equatable {
    public var id: String
    public var screen: String
    public var document: [UInt8]

    public init(id: String, screen: String, document: [UInt8]) {
        self.id = id
        self.screen = screen
        self.document = document
    }

    /// The kept form of a definition the service serves.
    public init(_ definition: ScreenDefinition) {
        self.init(id: definition.definitionID, screen: definition.id, document: definition.document.bytes)
    }
}
