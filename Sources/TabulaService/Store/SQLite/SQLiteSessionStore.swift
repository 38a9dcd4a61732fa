public import Logging
import Synchronization
import TabulaCore
import TabulaPlatform
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
    private let listEncodings = ShardedStorage<ListMemo>(perThread: { ListMemo() })
    private let retention: RetentionTimer
    private let now: @Sendable () -> Milliseconds
    public let limitCounts = LimitCounts()
    /// The sessions the database holds: counted once at the start, then kept by the commits
    /// that create and remove them. `/metrics` reads it on every scrape, which a `COUNT(*)`
    /// over the whole table, under the reader's lock, would make a pause of every read.
    private let sessions = Atomic<Int>(0)
    /// The last mark `/healthz` wrote to the database's header (`user_version`), while the
    /// writer's last batch failed.
    private let healthMarks = Atomic<Int>(0)

    /// Opens or creates the store in `directory` and migrates its schema. With
    /// `quickCheck`, SQLite's `quick_check` reads the whole file first, and a damaged one is
    /// refused with SQLite's own words (``SQLiteQuickCheck``).
    public init(
        directory: String, settings: StoreSettings, logger: Logger, quickCheck: Bool = true,
        retentionIntervalSeconds: Double = 60,
        now: @escaping @Sendable () -> Milliseconds = unixMilliseconds
    ) throws(StoreError) {
        self.settings = settings
        touches = TouchTracker(sessionTTLSeconds: settings.sessionTTLSeconds)
        self.logger = logger
        self.now = now
        path = directory + "/tabula.sqlite"
        let lockDescriptor = try Self.lockDirectory(directory)
        directoryLock = Locked(lockDescriptor)
        let cache = SessionStateCache(maxBytes: settings.stateCacheBytes, limitCounts: limitCounts)
        self.cache = cache
        do {
            try Self.refuseEmptyFile(path)
            let writeConnection = try SQLiteDatabase(path: path)
            // A 64 MiB page cache (filled only as pages are used): with SQLite's 2 MiB default the
            // writer re-reads log pages from the OS on most events. Checkpoints every 8,000 WAL
            // pages (32 MiB) instead of 1,000: a page that several events rewrote is copied to
            // the database once rather than once per checkpoint (Scripts/bench-events). A WAL
            // that one large transaction grew past that is cut back to it at the next
            // checkpoint (journal_size_limit): SQLite otherwise keeps the file's size.
            try writeConnection.execute(
                """
                PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000; PRAGMA cache_size=-65536;
                PRAGMA wal_autocheckpoint=8000; PRAGMA journal_size_limit=33554432;
                """)
            if quickCheck { try SQLiteQuickCheck.run(writeConnection, path: path, logger: logger) }
            try SQLiteSchema.migrate(writeConnection)
            let ringSize = settings.keepRevisions + 1
            try SQLiteSchema.fitRing(writeConnection, size: ringSize)
            let readConnection = try SQLiteDatabase(path: path)
            try readConnection.execute("PRAGMA busy_timeout=5000;")
            let statements = try SQLiteStatements(writeConnection, ringSize: ringSize, settings: settings, limitCounts: limitCounts)
            writer = SQLiteWriter(statements: statements, cache: cache, logger: logger)
            reader = try SQLiteStatements(readConnection, ringSize: ringSize, settings: settings, limitCounts: limitCounts)
            sessions.store(Int(try reader.countSessions.rows().first?.first?.integer ?? 0), ordering: .relaxed)
        } catch let error as StoreError {
            Glibc.close(lockDescriptor)
            throw error
        } catch {
            Glibc.close(lockDescriptor)
            // A file cut short, or not a database at all: SQLite cannot read its header.
            if let error = error as? SQLiteError, error.isCorruption {
                throw StoreError.corrupt("\(path) is damaged; SQLite cannot open it: \(error.message). Restore it from a backup")
            }
            throw StoreError("cannot open \(directory)/tabula.sqlite", error)
        }
        retention = RetentionTimer(intervalSeconds: retentionIntervalSeconds)
        writer.start()
        retention.start(removingExpiredFrom: self)
    }

    /// Refuses a database file of no bytes: SQLite would take it for a new database and
    /// serve an empty store, while every file Tabula made holds its schema from the first
    /// start on. It is a store cut to nothing (a failed copy or restore, a full disk), unless
    /// a write-ahead log beside it still holds its pages.
    private static func refuseEmptyFile(_ path: String) throws(StoreError) {
        guard fileSize(path) == 0, (fileSize(path + "-wal") ?? 0) == 0 else { return }
        throw StoreError.corrupt(
            "\(path) is empty (0 bytes), so it holds no store: a store keeps its schema from its first start. Restore it from a backup, or remove it to start an empty store"
        )
    }

    /// A file's size in bytes, or `nil` when there is none.
    private static func fileSize(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }

    /// Takes an exclusive lock on `DIRECTORY/tabula.lock`, creating the directory if needed.
    private static func lockDirectory(_ directory: String) throws(StoreError) -> Int32 {
        do throws(FileError) {
            try Files.createDirectories(directory)
        } catch {
            throw StoreError("cannot use the data directory \(directory): \(error)")
        }
        let lockPath = directory + "/tabula.lock"
        let descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw StoreError("cannot use the data directory \(directory): \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(descriptor)
            throw StoreError(
                "another tabula process is using the data directory \(directory); give each process its own --data-dir, or use --store postgres to share")
        }
        return descriptor
    }

    public var name: String { "sqlite" }

    public func createSession(_ new: NewSession, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        let time = now()
        let key = SessionKey(new.token)
        let digest: String
        do throws(StoreError) {
            digest = try TokenDigest.of(new.token)
        } catch {
            return completion(.failure(error))
        }
        submit(
            WriteJob(
                run: { batch throws(SQLiteError) in
                    try batch.statements.createSession(digest, new, time: time)
                    batch.setChanged(key, digest: digest, new.state)
                    return { [self] in
                        sessions.add(1, ordering: .relaxed)
                        completion(.success(()))
                    }
                },
                failed: { completion(.failure($0)) }))
    }

    public func sessionRecord(id: String, completion: @escaping @Sendable (Result<SessionRecord?, StoreError>) -> Void) {
        do {
            let record = try readerLock.withLock { () throws(SQLiteError) -> SessionRecord? in
                guard let found = try reader.session(id: id) else { return nil }
                var state = cache.get(digest: found.digest)?.state
                if state == nil { state = try reader.currentState(found.digest) }
                guard let state else { return nil }
                return SessionRecord(id: id, subject: found.subject, state: state, createdAt: found.createdAt, lastUsedAt: found.lastUsedAt)
            }
            completion(.success(record))
        } catch {
            completion(.failure(failure("cannot read the database", error) { id }))
        }
    }

    public func deleteSession(id: String, completion: @escaping @Sendable (Result<Bool, StoreError>) -> Void) {
        let time = now()
        submit(
            WriteJob(
                run: { batch throws(SQLiteError) in
                    guard let found = try batch.statements.session(id: id) else { return { completion(.success(false)) } }
                    try batch.statements.delete(found.digest, time: time)
                    batch.setRemoved(digest: found.digest)
                    return { [self] in
                        sessions.subtract(1, ordering: .relaxed)
                        completion(.success(true))
                    }
                },
                failed: { completion(.failure($0)) }))
    }

    public func read(
        session name: SessionName, _ request: SessionRead,
        completion: @escaping @Sendable (Result<SessionSnapshot?, StoreError>) -> Void
    ) {
        let time = now()
        let cutoff = answerCutoff()
        do {
            let found: Found?
            switch name {
            case .token(let token): found = try current(token: token)
            case .id(let id): found = try current(id: id)
            }
            guard let found else { return completion(.success(nil)) }
            let current = found.state
            var past = RevisionLookup.found(current)
            var answer: StoredAnswer?
            var id: String?
            if case .id(let known) = name, request.id { id = known }
            if request.revision != nil || request.eventID != nil || (request.id && id == nil) {
                let digest = found.digest
                try readerLock.withLock { () throws(SQLiteError) in
                    if let revision = request.revision { past = try reader.state(digest, at: revision, current: current) }
                    if let eventID = request.eventID { answer = try reader.answer(digest, eventID: eventID, notBefore: cutoff) }
                    if request.id && id == nil { id = try reader.id(digest: digest) }
                }
            }
            if let key = found.key { touchIfStale(key) }
            completion(.success(SessionSnapshot(current: current, past: past, answer: answer, time: time, id: id)))
        } catch let error as StoreError {
            completion(.failure(error))
        } catch {
            completion(.failure(failure("cannot read the database", error) { publicID(of: name) }))
        }
    }

    /// The public id of a session whose read failed, for the log, when the database still
    /// gives it.
    private func publicID(of name: SessionName) -> String? {
        switch name {
        case .id(let id): return id
        case .token(let token):
            do {
                let digest = try TokenDigest.of(token)
                return try readerLock.withLock { () throws(SQLiteError) in try reader.id(digest: digest) }
            } catch {
                return nil
            }
        }
    }

    /// A session's current state as a read found it, with its token's key when a client
    /// named it, and its digest.
    private struct Found {
        let key: SessionKey?
        let digest: String
        let state: SessionState
    }

    /// A client's session: from the cache (with the digest it keeps), or read and cached.
    private func current(token: String) throws -> Found? {
        let key = SessionKey(token)
        if let cached = cache.getWithDigest(key) { return Found(key: key, digest: cached.digest, state: cached.watched.state) }
        let removals = cache.removalCount
        let digest = try TokenDigest.of(token)
        guard let current = try readerLock.withLock({ () throws(SQLiteError) in try reader.currentState(digest) }) else { return nil }
        cache.put(key, digest: digest, current, unlessRemovedSince: removals)
        return Found(key: key, digest: digest, state: current)
    }

    /// The backend's session: its digest from the database, its state from the cache when
    /// a client's request put it there, else from the database (not cached then: the cache
    /// is found by token).
    private func current(id: String) throws(SQLiteError) -> Found? {
        try readerLock.withLock { () throws(SQLiteError) -> Found? in
            guard let digest = try reader.digest(id: id) else { return nil }
            var state = cache.get(digest: digest)?.state
            if state == nil { state = try reader.currentState(digest) }
            guard let state else { return nil }
            return Found(key: nil, digest: digest, state: state)
        }
    }

    public func commit(
        session name: SessionName, _ commit: SessionCommit,
        completion: @escaping @Sendable (Result<CommitResult, StoreError>) -> Void
    ) {
        let cutoff = answerCutoff()
        // The digest and the new state's stored form are made here, on the calling thread:
        // the single writer thread, whose time per event limits events a second, only checks
        // and stores.
        let key: SessionKey?
        let knownDigest: String?
        let id: String?
        switch name {
        case .token(let token):
            let tokenKey = SessionKey(token)
            var digest = cache.getWithDigest(tokenKey)?.digest
            if digest == nil {
                do throws(StoreError) {
                    digest = try TokenDigest.of(token)
                } catch {
                    return completion(.failure(error))
                }
            }
            (key, knownDigest, id) = (tokenKey, digest, nil)
        case .id(let name): (key, knownDigest, id) = (nil, nil, name)
        }
        let stateBytes = commit.state.map { state in listEncodings.withThreadShard { state.valuesBytes(reusing: &$0) } }
        submit(
            WriteJob(
                run: { batch throws(SQLiteError) in
                    var digest = knownDigest
                    if let id { digest = try batch.statements.digest(id: id) }
                    guard let digest, let current = try batch.currentState(key, digest: digest) else {
                        return { completion(.success(.unknownSession)) }
                    }
                    guard current.revision == commit.expectedRevision else { return { completion(.success(.conflict)) } }
                    if let eventID = commit.event.eventID, commit.answer != nil,
                        try batch.statements.answer(digest, eventID: eventID, notBefore: cutoff) != nil
                    {
                        return { completion(.success(.conflict)) }
                    }
                    guard try batch.statements.apply(digest, commit, stateBytes: stateBytes) else {
                        throw SQLiteError(code: 19, message: "session \(digest.prefix(8)) (digest) changed under its writer")
                    }
                    if let state = commit.state { batch.setChanged(key, digest: digest, state) }
                    return { completion(.success(.committed)) }
                },
                failed: { completion(.failure($0)) }))
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

    public func keepDefinitions(_ definitions: [KeptDefinition]) throws(StoreError) -> [String] {
        let time = now()
        let keep = settings.keepDefinitions
        let result = waitForCompletion { (completion: @escaping @Sendable (Result<[String], StoreError>) -> Void) in
            submit(
                WriteJob(
                    run: { batch throws(SQLiteError) in
                        let removed = try batch.statements.keepDefinitions(definitions, time: time, keep: keep)
                        return { completion(.success(removed)) }
                    },
                    failed: { completion(.failure($0)) }))
        }
        return try (result ?? .failure(StoreError("the database writer stopped"))).get()
    }

    public func keptDefinition(id: String, completion: @escaping @Sendable (Result<KeptDefinition?, StoreError>) -> Void) {
        do {
            completion(.success(try readerLock.withLock { () throws(SQLiteError) in try reader.keptDefinition(id: id) }))
        } catch {
            completion(.failure(failure("cannot read the database", error)))
        }
    }

    public func readFeed(after: FeedCursor?, limit: Int, completion: @escaping @Sendable (Result<FeedPage, StoreError>) -> Void) {
        do {
            completion(.success(try readerLock.withLock { () throws(SQLiteError) in try reader.readFeed(after: after, limit: limit) }))
        } catch {
            completion(.failure(failure("cannot read the database", error)))
        }
    }

    public func sessionCount() -> Int {
        max(0, sessions.load(ordering: .relaxed))
    }

    /// A read of the database, of one page: every probe runs it. While the writer's last
    /// batch failed (a full disk, a file past its size limit), a write as well: the answer is
    /// whether writes work again, which only a write can tell, and the write's commit is what
    /// clears the failure.
    public func checkHealth(completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        do {
            _ = try readerLock.withLock { () throws(SQLiteError) in try reader.probe.rows() }
        } catch {
            return completion(.failure(failure("cannot read the database", error)))
        }
        guard writer.lastBatchFailure != nil else { return completion(.success(())) }
        // A mark no other write uses, changed each time: SQLite may write no page for a
        // value written over with itself (a row's `UPDATE` to its own value writes none).
        let mark = healthMarks.wrappingAdd(1, ordering: .relaxed).newValue & 0x3FFF_FFFF
        submit(
            WriteJob(
                run: { batch throws(SQLiteError) in
                    try batch.statements.database.execute("PRAGMA user_version = \(mark)")
                    return { completion(.success(())) }
                },
                failed: { completion(.failure($0)) }))
    }

    /// Every completion runs inside its call (reads) or after a batch's commit (writes),
    /// which the writer hands to `pool`.
    public func continueCompletions(on pool: WorkerPool) -> Bool {
        writer.answer(on: pool)
        return true
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

    /// The store error for a failed read, logged as well, since a client is told only what
    /// failed: a damaged file or row as an error, with the session's id where it is known.
    private func failure(_ doing: String, _ error: any Error, session: () -> String? = { nil }) -> StoreError {
        let failure = StoreError(doing, error)
        guard failure.kind == .corrupt else {
            logger.warning("\(failure) (in \(path)); answered 503 store-unavailable")
            return failure
        }
        if let id = session() {
            logger.error("session \(id): \(failure); answered 500 store-corrupt, and nothing was written over it")
        } else {
            logger.error("\(failure); answered 500 store-corrupt, and nothing was written over it")
        }
        return failure
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
        guard let digest = try? TokenDigest.of(key.token) else { return }
        let stale = time - touches.interval
        _ = writer.submit(
            WriteJob(
                run: { batch throws(SQLiteError) in
                    try batch.statements.touch(digest, time: time, olderThan: stale)
                    return {}
                },
                failed: { _ in }))
    }

    public func removeExpired(completion: @escaping @Sendable (Result<Int, StoreError>) -> Void) {
        let time = now()
        let answerCutoff = time - Milliseconds(settings.idempotencyTTLSeconds) * 1000
        let sessionCutoff = time - Milliseconds(settings.sessionTTLSeconds) * 1000
        let feedCutoff = time - Milliseconds(settings.feedRetentionSeconds) * 1000
        let logger = self.logger
        // Through `submit(_:)`: a full or stopped writer fails the job, so its caller hears.
        submit(
            WriteJob(
                run: { batch throws(SQLiteError) in
                    let removed = try batch.statements.removeExpired(
                        answerCutoff: answerCutoff, sessionCutoff: sessionCutoff, limit: 1000, time: time)
                    for digest in removed { batch.setRemoved(digest: digest) }
                    // Bounded, as the sessions are: the writer's other jobs wait meanwhile.
                    // What is left is taken up by the next pass.
                    _ = try batch.statements.removeFeedEntries(olderThan: feedCutoff, limit: 20_000)
                    return { [self] in
                        sessions.subtract(removed.count, ordering: .relaxed)
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
