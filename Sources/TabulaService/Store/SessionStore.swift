public import TabulaCore

/// Where sessions live: their current state, enough history to rebuild recent revisions,
/// an append-only event log and the answers of events sent with an `eventId`.
///
/// Every access runs a closure inside the store's serialization for that session and
/// reports through a completion handler: a store may call it before returning (memory) or
/// later, once a commit is durable (SQLite, PostgreSQL); the HTTP layer parks the request
/// meanwhile. A write closure may run more than once (optimistic stores retry it on a
/// conflict), so it must be free of side effects other than its `commit`.
public protocol SessionStore: Sendable {
    /// Stores a new session at revision 0; `completion` runs once it is durable.
    func createSession(
        token: String, initialState: SessionState,
        completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)

    /// Runs `body` on a read-only view of the session; the result is `nil` when the session
    /// does not exist.
    func read<Value: Sendable>(
        session token: String, _ body: @escaping @Sendable (any SessionReading) -> Value,
        completion: @escaping @Sendable (Result<Value?, StoreError>) -> Void)

    /// Runs `body` with the session locked against other writers; whatever it commits is
    /// durable before `completion` runs. The result is `nil` when the session does not exist.
    func write<Value: Sendable>(
        session token: String, _ body: @escaping @Sendable (inout SessionWriting) -> Value,
        completion: @escaping @Sendable (Result<Value?, StoreError>) -> Void)

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
    /// ``StoreSettings/keepDefinitions``. Called once, before serving; returns once durable.
    func keepDefinitions(_ definitions: [KeptDefinition]) throws(StoreError)

    /// The kept definition with this id; `nil` when the store has none.
    func keptDefinition(id: String, completion: @escaping @Sendable (Result<KeptDefinition?, StoreError>) -> Void)

    /// The number of sessions, for metrics.
    func sessionCount() -> Int

    /// "memory", "sqlite" or "postgres".
    var name: String { get }

    /// Succeeds when the store can serve requests (for `/healthz`).
    func checkHealth(completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)

    /// One retention pass: removes `eventId` answers older than the idempotency TTL and
    /// sessions idle longer than the session TTL (with their log and answers); reports how
    /// many sessions it removed. Stores also run it every minute on their own.
    func removeExpired(completion: @escaping @Sendable (Result<Int, StoreError>) -> Void)

    /// Finishes queued work and releases the store; called after the server stopped.
    func close()
}

/// What a transaction can read of a session.
public protocol SessionReading: Sendable {
    var current: SessionState { get }
    /// The state at a past (or the current) revision, if the store can still rebuild it.
    func state(at revision: Int) -> RevisionLookup
    /// The answer stored for an event id within the idempotency window.
    func storedAnswer(eventID: String) -> StoredAnswer?
}

/// A write transaction's view: what it reads, plus what it commits.
public struct SessionWriting: Sendable {
    public let reading: any SessionReading
    /// The transaction's time by the store's clock (milliseconds since 1970), for the log
    /// entry and the answer it commits.
    public let time: Milliseconds
    /// Set by ``commit(_:event:answer:)``.
    public private(set) var commit: Commit?

    public struct Commit: Sendable {
        public var state: SessionState
        public var event: EventRecord
        public var answer: StoredAnswer?
    }

    public init(reading: any SessionReading, time: Milliseconds) {
        self.reading = reading
        self.time = time
    }

    public var current: SessionState { reading.current }

    /// Records the new state (its revision must be the current one plus one), the event that
    /// led to it, and the answer to replay for its event id. An answer may also be stored
    /// without a state change (`state` equal to the current one).
    public mutating func commit(_ state: SessionState, event: EventRecord, answer: StoredAnswer?) {
        commit = Commit(state: state, event: event, answer: answer)
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

/// Why the store could not do what was asked; the API answers 503.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
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
