import TabulaCore
import TabulaPlatform

/// The store as the service uses it: every completion that a store reports from a thread of
/// its own (PostgreSQL's pool) continues on the service's ``WorkerPool`` instead, so that no
/// decision, render or diff runs on a store's thread (a conflict decided again there held
/// up the answers of every other batch). A completion that comes before the call returns,
/// on the calling thread (the memory store, SQLite's reads), goes on there: it is already
/// on a thread of the service's. A store that can hand its completions to the pool itself
/// (SQLite's writer, a batch's answers at once) is asked to
/// (``SessionStore/continueCompletions(on:)``), and is then used as it is: nothing is handed
/// over twice, and no call pays for the wrapper (``serving(_:on:)``).
final class ServiceStore: SessionStore {
    let inner: any SessionStore
    let pool: WorkerPool

    /// `store` as the service uses it: itself when it continues its completions on `pool`,
    /// else wrapped.
    static func serving(_ store: any SessionStore, on pool: WorkerPool) -> any SessionStore {
        store.continueCompletions(on: pool) ? store : ServiceStore(store, pool: pool)
    }

    init(_ inner: any SessionStore, pool: WorkerPool) {
        self.inner = inner
        self.pool = pool
    }

    /// `operation` with a completion that continues on the pool unless it runs inside the call.
    private func continuing<Value: Sendable>(
        _ completion: @escaping @Sendable (Value) -> Void, _ operation: (@escaping @Sendable (Value) -> Void) -> Void
    ) {
        let call = CallTracker()
        operation { [pool] value in
            if call.isInsideCall { return completion(value) }
            pool.run { completion(value) }
        }
        call.callReturned()
    }

    func createSession(_ session: NewSession, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        continuing(completion) { inner.createSession(session, completion: $0) }
    }

    func sessionRecord(id: String, completion: @escaping @Sendable (Result<SessionRecord?, StoreError>) -> Void) {
        continuing(completion) { inner.sessionRecord(id: id, completion: $0) }
    }

    func deleteSession(id: String, completion: @escaping @Sendable (Result<Bool, StoreError>) -> Void) {
        continuing(completion) { inner.deleteSession(id: id, completion: $0) }
    }

    func read(session name: SessionName, _ request: SessionRead, completion: @escaping @Sendable (Result<SessionSnapshot?, StoreError>) -> Void) {
        continuing(completion) { inner.read(session: name, request, completion: $0) }
    }

    func commit(session name: SessionName, _ commit: SessionCommit, completion: @escaping @Sendable (Result<CommitResult, StoreError>) -> Void) {
        continuing(completion) { inner.commit(session: name, commit, completion: $0) }
    }

    func currentStateIfCached(session key: SessionKey) -> WatchedState? {
        inner.currentStateIfCached(session: key)
    }

    func touch(session key: SessionKey, watch: SessionWatch) {
        inner.touch(session: key, watch: watch)
    }

    func keepDefinitions(_ definitions: [KeptDefinition]) throws(StoreError) -> [String] {
        try inner.keepDefinitions(definitions)
    }

    func keptDefinition(id: String, completion: @escaping @Sendable (Result<KeptDefinition?, StoreError>) -> Void) {
        continuing(completion) { inner.keptDefinition(id: id, completion: $0) }
    }

    func readFeed(after: FeedCursor?, limit: Int, completion: @escaping @Sendable (Result<FeedPage, StoreError>) -> Void) {
        continuing(completion) { inner.readFeed(after: after, limit: limit, completion: $0) }
    }

    func sessionCount() -> Int {
        inner.sessionCount()
    }

    var limitCounts: LimitCounts { inner.limitCounts }

    var name: String { inner.name }

    func checkHealth(completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        continuing(completion) { inner.checkHealth(completion: $0) }
    }

    func removeExpired(completion: @escaping @Sendable (Result<Int, StoreError>) -> Void) {
        continuing(completion) { inner.removeExpired(completion: $0) }
    }

    func observeChanges(_ observer: @escaping @Sendable (StoreNotice) -> Void) {
        inner.observeChanges { [pool] notice in pool.run { observer(notice) } }
    }

    /// The store's own: the service does not close it (its owner does, after the server).
    func close() {}
}
