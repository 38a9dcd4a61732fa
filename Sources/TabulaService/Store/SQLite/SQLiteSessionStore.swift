import TabulaPlatform
public import Logging
public import TabulaCore
import TabulaSQLite

/// Sessions in a SQLite database file (`DIRECTORY/tabula.sqlite`, WAL mode,
/// `synchronous=FULL`): the default store. An event is acknowledged only after the
/// transaction holding it commits; commits are grouped by one writer thread. One process
/// owns the directory (it is locked), so current states are cached in memory.
public final class SQLiteSessionStore: SessionStore {
    public let path: String
    private let settings: StoreSettings
    private let logger: Logger
    private let cache: SessionStateCache
    private let writer: SQLiteWriter
    private let reader: SQLiteStatements
    private let readerLock = PlainLock()
    private let directoryLock: Locked<Int32>
    /// Reads refresh a session's `last_used_ms` at most hourly (more often for short TTLs).
    private let touches: TouchTracker
    /// Each thread's encodings of the lists it stored last (most events leave lists as they were).
    private let listEncodings = ShardedStorage<ListMemo>(count: 8) { ListMemo() }
    private let retention: RetentionTimer
    private let now: @Sendable () -> Milliseconds

    /// Opens or creates the store in `directory` and migrates its schema.
    public init(
        directory: String, settings: StoreSettings, logger: Logger,
        cacheEntries: Int = 100_000, retentionIntervalSeconds: Double = 60,
        now: @escaping @Sendable () -> Milliseconds = unixMilliseconds
    ) throws(StoreError) {
        self.settings = settings
        touches = TouchTracker(sessionTTLSeconds: settings.sessionTTLSeconds)
        self.logger = logger
        self.now = now
        path = directory + "/tabula.sqlite"
        let lockDescriptor = try Self.lockDirectory(directory)
        directoryLock = Locked(lockDescriptor)
        let cache = SessionStateCache(maxEntries: cacheEntries)
        self.cache = cache
        do {
            let writeConnection = try SQLiteDatabase(path: path)
            // A 64 MiB page cache (filled only as pages are used): with SQLite's 2 MiB default the
            // writer re-reads log pages from the OS on most events. Checkpoints every 8,000 WAL
            // pages (32 MiB) instead of 1,000: a page that several events rewrote is copied to
            // the database once, ~15% fewer bytes written per event.
            try writeConnection.execute(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000; PRAGMA cache_size=-65536; PRAGMA wal_autocheckpoint=8000;")
            try SQLiteSchema.migrate(writeConnection)
            let ringSize = settings.keepRevisions + 1
            try SQLiteSchema.fitRing(writeConnection, size: ringSize)
            let readConnection = try SQLiteDatabase(path: path)
            try readConnection.execute("PRAGMA busy_timeout=5000;")
            writer = SQLiteWriter(statements: try SQLiteStatements(writeConnection, ringSize: ringSize), cache: cache, logger: logger)
            reader = try SQLiteStatements(readConnection, ringSize: ringSize)
        } catch let error as StoreError {
            Glibc.close(lockDescriptor)
            throw error
        } catch {
            Glibc.close(lockDescriptor)
            throw StoreError("cannot open \(directory)/tabula.sqlite: \(error)")
        }
        retention = RetentionTimer(intervalSeconds: retentionIntervalSeconds)
        writer.start()
        retention.start { [weak self] in self?.removeExpired { _ in } }
    }

    /// Takes an exclusive lock on `DIRECTORY/tabula.lock`, creating the directory if needed.
    private static func lockDirectory(_ directory: String) throws(StoreError) -> Int32 {
        var path = ""
        for component in directory.split(separator: "/", omittingEmptySubsequences: false) {
            path += (path.isEmpty && !directory.hasPrefix("/") ? "" : "/") + component
            if !component.isEmpty { mkdir(path, 0o750) }
        }
        let descriptor = open(directory + "/tabula.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw StoreError("cannot use the data directory \(directory): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(descriptor)
            throw StoreError("another tabula process is using the data directory \(directory); give each process its own --data-dir, or use --store postgres to share")
        }
        return descriptor
    }

    public var name: String { "sqlite" }

    public func createSession(
        token: String, initialState: SessionState, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) {
        let time = now()
        submit(WriteJob(
            run: { batch throws(SQLiteError) in
                try batch.statements.createSession(token, initialState, time: time)
                batch.setChanged(token, initialState)
                return { completion(.success(())) }
            },
            failed: { completion(.failure($0)) }))
    }

    public func read<Value: Sendable>(
        session token: String, _ body: @escaping @Sendable (any SessionReading) -> Value,
        completion: @escaping @Sendable (Result<Value?, StoreError>) -> Void
    ) {
        let key = SessionKey(token)
        let current: SessionState?
        if let cached = cache.get(key) {
            current = cached.state
        } else {
            let removals = cache.removalCount
            do {
                current = try readerLock.withLock { () throws(SQLiteError) in try reader.currentState(token) }
            } catch {
                return completion(.failure(StoreError("cannot read the database: \(error)")))
            }
            if let current { cache.put(token, current, unlessRemovedSince: removals) }
        }
        guard let current else { return completion(.success(nil)) }
        let view = SQLiteSessionView(
            token: token, current: current, statements: reader, lock: readerLock, answerCutoff: answerCutoff())
        let value = body(view)
        if let failure = view.failure {
            return completion(.failure(StoreError("cannot read the database: \(failure)")))
        }
        touchIfStale(key)
        completion(.success(value))
    }

    public func write<Value: Sendable>(
        session token: String, _ body: @escaping @Sendable (inout SessionWriting) -> Value,
        completion: @escaping @Sendable (Result<Value?, StoreError>) -> Void
    ) {
        let cutoff = answerCutoff()
        let speculation = speculate(token, body, answerCutoff: cutoff)
        submit(WriteJob(
            run: { [now, touchInterval = touches.interval] batch throws(SQLiteError) in
                guard let current = try batch.currentState(token) else { return { completion(.success(nil)) } }
                let value: Value
                let writing: SessionWriting
                var stateBytes: [UInt8]?
                if let speculation, try speculation.holds(on: current, statements: batch.statements, token: token, answerCutoff: cutoff) {
                    (value, writing, stateBytes) = (speculation.value, speculation.writing, speculation.stateBytes)
                } else {
                    let view = SQLiteSessionView(token: token, current: current, statements: batch.statements, lock: nil, answerCutoff: cutoff)
                    var fresh = SessionWriting(reading: view, time: now())
                    value = body(&fresh)
                    if let failure = view.failure { throw failure }
                    writing = fresh
                }
                if let commit = writing.commit {
                    guard try batch.statements.apply(token, commit, stateBytes: stateBytes, from: current) else {
                        throw SQLiteError(code: 19, message: "session \(SessionToken.logPrefix(token)) changed under its writer")
                    }
                    if commit.state.revision == current.revision + 1 { batch.setChanged(token, commit.state) }
                } else {
                    let time = now()
                    try batch.statements.touch(token, time: time, olderThan: time - touchInterval)
                }
                return { completion(.success(value)) }
            },
            failed: { completion(.failure($0)) }))
    }

    /// Runs a write's body on the calling thread against the cached state, so that the
    /// single writer thread only checks and stores the result: the writer's time per event,
    /// not the disk, is what limits events per second. `nil` on a cache miss or a read error.
    private func speculate<Value: Sendable>(
        _ token: String, _ body: @Sendable (inout SessionWriting) -> Value, answerCutoff: Milliseconds
    ) -> WriteSpeculation<Value>? {
        guard let base = cache.get(SessionKey(token))?.state else { return nil }
        let view = SQLiteSessionView(token: token, current: base, statements: reader, lock: readerLock, answerCutoff: answerCutoff)
        var writing = SessionWriting(reading: view, time: now())
        let value = body(&writing)
        guard view.failure == nil else { return nil }
        let stateBytes = writing.commit.flatMap { commit in
            commit.state.revision == base.revision + 1 ? listEncodings.writeOwn { commit.state.valuesBytes(reusing: &$0) } : nil
        }
        return WriteSpeculation(base: base, value: value, writing: writing, stateBytes: stateBytes)
    }

    public func currentStateIfCached(session key: SessionKey) -> WatchedState? {
        guard let cached = cache.get(key) else { return nil }
        touch(session: key, watch: cached.watch)
        return cached
    }

    /// The watch remembers the last refresh, so that reads within the interval ask
    /// nothing shared: the tracker's lock is written by every thread that takes it.
    public func touch(session key: SessionKey, watch: SessionWatch) {
        guard watch.touch(at: now(), interval: touches.interval) else { return }
        touchIfStale(key)
    }

    public func keepDefinitions(_ definitions: [KeptDefinition]) throws(StoreError) {
        let time = now()
        let keep = settings.keepDefinitions
        let result = waitForCompletion { (completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) in
            submit(WriteJob(
                run: { batch throws(SQLiteError) in
                    try batch.statements.keepDefinitions(definitions, time: time, keep: keep)
                    return { completion(.success(())) }
                },
                failed: { completion(.failure($0)) }))
        }
        try (result ?? .failure(StoreError("the database writer stopped"))).get()
    }

    public func keptDefinition(id: String, completion: @escaping @Sendable (Result<KeptDefinition?, StoreError>) -> Void) {
        do {
            completion(.success(try readerLock.withLock { () throws(SQLiteError) in try reader.keptDefinition(id: id) }))
        } catch {
            completion(.failure(StoreError("cannot read the database: \(error)")))
        }
    }

    public func sessionCount() -> Int {
        let rows = try? readerLock.withLock { () throws(SQLiteError) in try reader.countSessions.rows() }
        return Int(rows?.first?.first?.integer ?? 0)
    }

    public func checkHealth(completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        do {
            _ = try readerLock.withLock { () throws(SQLiteError) in try reader.countSessions.rows() }
            completion(.success(()))
        } catch {
            completion(.failure(StoreError("cannot read \(path): \(error)")))
        }
    }

    public func close() {
        retention.stop()
        writer.stop()
        directoryLock.withLock { descriptor in
            guard descriptor >= 0 else { return }
            Glibc.close(descriptor)  // releases the flock
            descriptor = -1
        }
    }

    private func submit(_ job: WriteJob) {
        guard writer.submit(job) else {
            job.failed(StoreError("the database writer is overloaded or stopping"))
            return
        }
    }

    private func answerCutoff() -> Milliseconds {
        now() - Milliseconds(settings.idempotencyTTLSeconds) * 1000
    }

    /// Reads count as use: refresh `last_used_ms` at most hourly (a tenth of a shorter
    /// session TTL), so read-only sessions are not mistaken for idle ones.
    private func touchIfStale(_ key: SessionKey) {
        let time = now()
        guard touches.isDue(key, at: time) else { return }
        let token = key.token
        let stale = time - touches.interval
        _ = writer.submit(WriteJob(
            run: { batch throws(SQLiteError) in
                try batch.statements.touch(token, time: time, olderThan: stale)
                return {}
            },
            failed: { _ in }))
    }

    public func removeExpired(completion: @escaping @Sendable (Result<Int, StoreError>) -> Void) {
        let time = now()
        let answerCutoff = time - Milliseconds(settings.idempotencyTTLSeconds) * 1000
        let sessionCutoff = time - Milliseconds(settings.sessionTTLSeconds) * 1000
        let logger = self.logger
        _ = writer.submit(WriteJob(
            run: { batch throws(SQLiteError) in
                let removed = try batch.statements.removeExpired(answerCutoff: answerCutoff, sessionCutoff: sessionCutoff, limit: 1000)
                for token in removed { batch.setRemoved(token) }
                return {
                    if !removed.isEmpty { logger.info("removed \(removed.count) idle sessions") }
                    completion(.success(removed.count))
                }
            },
            failed: { error in
                logger.warning("retention failed: \(error)")
                completion(.failure(error))
            }))
    }
}
