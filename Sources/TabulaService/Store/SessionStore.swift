public import TabulaPlatform

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
    /// served now, and so as its screen's newest version, even when reloads come within one
    /// tick of the clock or the clock stepped back); then removes each of their screens'
    /// versions beyond the newest ``StoreSettings/keepDefinitions``. Called before serving, and by each reload of the
    /// definitions while serving; returns, once durable, the ids of the versions it removed.
    @discardableResult
    func keepDefinitions(_ definitions: [KeptDefinition]) throws(StoreError) -> [String]

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

    /// Asks the store to run the completions it reports from threads of its own on `pool`,
    /// handing them over there directly; `true` when every completion from now on runs
    /// either inside the call that was given it or on `pool` (the service then hands
    /// nothing over again). The default declines.
    func continueCompletions(on pool: WorkerPool) -> Bool

    /// Finishes queued work and releases the store; called after the server stopped.
    func close()
}

extension SessionStore {
    public func observeChanges(_ observer: @escaping @Sendable (StoreNotice) -> Void) {}

    public func continueCompletions(on pool: WorkerPool) -> Bool { false }
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
