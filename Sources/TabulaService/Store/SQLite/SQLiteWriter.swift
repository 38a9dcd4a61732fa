import Logging
import TabulaCore
import TabulaPlatform
import TabulaSQLite

extension StoreError {
    /// The store error for a SQLite failure while doing something: ``Kind/corrupt`` when
    /// SQLite found the file damaged or a row did not decode, else ``Kind/unavailable``.
    init(_ doing: String, _ error: any Error) {
        let sqlite = error as? SQLiteError
        self.init(
            doing, databaseMessage: "\(error)", isOwn: sqlite?.isOwnMessage == true,
            kind: sqlite?.isCorruption == true ? .corrupt : .unavailable)
    }
}

/// One unit of work for the writer. `run` executes inside the batch's transaction and
/// returns what to do once the batch is durable; `failed` tells the client otherwise.
struct WriteJob: Sendable {
    let run: @Sendable (SQLiteBatch) throws(SQLiteError) -> @Sendable () -> Void
    let failed: @Sendable (StoreError) -> Void
}

/// The writer's transaction-scoped state: its statements, and sessions changed earlier in
/// the same batch (later jobs must see them; the cache only learns them after the commit).
/// Sessions are named by their token's digest, as the database names them.
final class SQLiteBatch: @unchecked Sendable {
    let statements: SQLiteStatements
    let cache: SessionStateCache
    /// New states by digest, with the token's key when the writer knew the token.
    private(set) var changed: [String: (key: SessionKey?, state: SessionState)] = [:]
    private(set) var removed: Set<String> = []
    /// What the running job overwrote, so that a job rolled back to its savepoint can be
    /// undone here too. A copy of both collections per job would copy them on its first
    /// change: quadratic in the batch's size.
    private var undo: [(digest: String, change: (key: SessionKey?, state: SessionState)?, wasRemoved: Bool)] = []

    init(statements: SQLiteStatements, cache: SessionStateCache) {
        self.statements = statements
        self.cache = cache
    }

    func currentState(_ session: SessionKey?, digest: String) throws(SQLiteError) -> SessionState? {
        if let change = changed[digest] { return change.state }
        if removed.contains(digest) { return nil }
        if let cached = session.map(cache.get) ?? cache.get(digest: digest) { return cached.state }
        return try statements.currentState(digest)
    }

    /// Records the session's new current state, for later jobs and for the cache.
    func setChanged(_ session: SessionKey?, digest: String, _ state: SessionState) {
        undo.append((digest, changed.updateValue((session, state), forKey: digest), removed.contains(digest)))
    }

    /// Records that the session is gone.
    func setRemoved(digest: String) {
        undo.append((digest, changed.removeValue(forKey: digest), !removed.insert(digest).inserted))
    }

    /// Starts a job: its changes are the ones `undoJob` takes back.
    func beginJob() {
        undo.removeAll(keepingCapacity: true)
    }

    /// Takes back the current job's changes, newest first.
    func undoJob() {
        for entry in undo.reversed() {
            changed[entry.digest] = entry.change
            if entry.wasRemoved { removed.insert(entry.digest) } else { removed.remove(entry.digest) }
        }
        undo.removeAll(keepingCapacity: true)
    }
}

/// Group commit: one thread owns the write connection, takes every job waiting (up to a
/// batch), runs each in a savepoint of one transaction, commits once with
/// `synchronous=FULL`, and only then answers. One fsync is shared by the whole batch,
/// which is what lets a disk that manages a few thousand commits a second carry more
/// events than that. Answers are sent from another thread, so that the writer starts the
/// next batch while the previous one's clients are being answered: the service's pool once
/// it is given (``answer(on:)``), one hand-over per batch; until then a thread of its own.
final class SQLiteWriter: @unchecked Sendable {
    let queue = BlockingQueue<WriteJob>(capacity: 50_000)
    /// Each batch's answers, in commit order, with the batch's jobs: what a job holds (the
    /// event's new state and stored form, its outcome) is freed there too, not on the writer.
    private let answers = BlockingQueue<(continuations: [@Sendable () -> Void], jobs: [WriteJob])>(capacity: Int.max)
    private let statements: SQLiteStatements
    private let cache: SessionStateCache
    private let logger: Logger
    private let maxBatch: Int
    private var thread: WorkerThread?
    private var answerThread: WorkerThread?
    /// Where batches are answered once the service gave its pool.
    private let answerPool = Locked<WorkerPool?>(nil)
    /// Why the last batch wrote nothing (it could not begin, was rolled back whole, or did
    /// not commit), until a batch commits with every job: what `/healthz` reports, since a
    /// read of the database says nothing of a disk that refuses writes.
    private let batchFailure = Locked<StoreError?>(nil)

    init(statements: SQLiteStatements, cache: SessionStateCache, logger: Logger, maxBatch: Int = 512) {
        self.statements = statements
        self.cache = cache
        self.logger = logger
        self.maxBatch = maxBatch
    }

    func start() {
        thread = WorkerThread.start { [self] in
            while let jobs = queue.take(maximum: maxBatch) {
                if !jobs.isEmpty { runBatch(jobs) }
            }
        }
        answerThread = WorkerThread.start { [answers] in
            while let batches = answers.take(maximum: 64) {
                for batch in batches {
                    for continuation in batch.continuations { continuation() }
                }
            }
        }
    }

    /// Answers every batch from now on on `pool`; the writer's own answering thread
    /// answers what it holds and ends, joined here so that no finished thread is left
    /// unjoined while the store lives on.
    func answer(on pool: WorkerPool) {
        answerPool.withLock { $0 = pool }
        answers.close()
        answerThread?.join()
        answerThread = nil
    }

    /// Why the last batch wrote nothing, while no batch has committed whole since.
    var lastBatchFailure: StoreError? { batchFailure.withLock { $0 } }

    /// Queues a job; `false` when the writer is overloaded or stopped.
    func submit(_ job: WriteJob) -> Bool {
        queue.push(job)
    }

    /// Finishes the queued jobs, answers them, and stops both threads.
    func stop() {
        queue.close()
        thread?.join()
        thread = nil
        answers.close()
        answerThread?.join()
        answerThread = nil
    }

    /// Hands a batch's answers to the pool or the answering thread (one wake-up for the
    /// whole batch); runs them on the writer's own thread if neither takes them.
    private func answer(_ continuations: [@Sendable () -> Void], releasing jobs: [WriteJob]) {
        if continuations.isEmpty { return }
        if let pool = answerPool.withLock({ $0 }) {
            return pool.run {
                for continuation in continuations { continuation() }
                withExtendedLifetime(jobs) {}
            }
        }
        if answers.push((continuations, jobs)) { return }
        for continuation in continuations { continuation() }
    }

    private func runBatch(_ jobs: [WriteJob]) {
        let database = statements.database
        let batch = SQLiteBatch(statements: statements, cache: cache)
        /// Answers every job of the batch as not written.
        func failEvery(_ failure: StoreError) {
            batchFailure.withLock { $0 = failure }
            answer(jobs.map { job in { job.failed(failure) } }, releasing: jobs)
        }
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch {
            logger.error("cannot begin a transaction: \(error)")
            return failEvery(StoreError("the database cannot start a transaction", error))
        }
        var committed: [@Sendable () -> Void] = []
        var rolledBack: [(WriteJob, StoreError)] = []
        committed.reserveCapacity(jobs.count)
        for job in jobs {
            batch.beginJob()
            do {
                try statements.savepoint.run()
                let continuation = try job.run(batch)
                try statements.release.run()
                committed.append(continuation)
            } catch {
                guard database.isInTransaction else {
                    // SQLite rolled the whole batch back: the jobs before this one are undone
                    // too, and a job run now would commit on its own. None is acknowledged.
                    statements.forgetBounds()
                    logger.error("the database rolled back a batch; \(jobs.count) writes are not acknowledged: \(error)")
                    return failEvery(StoreError("the database rolled back the write", error))
                }
                do throws(SQLiteError) {
                    try statements.rollbackToSavepoint.run()
                    try statements.release.run()
                } catch let undoError {
                    // The job's writes cannot be taken back alone (an I/O error, no memory):
                    // released, they would commit with the others although the job is
                    // answered as failed. The whole batch goes back instead.
                    if database.isInTransaction { try? database.execute("ROLLBACK") }
                    statements.forgetBounds()
                    logger.error("a failed write could not be undone alone; \(jobs.count) writes are not acknowledged: \(undoError)")
                    return failEvery(StoreError("the database could not undo a failed write", undoError))
                }
                batch.undoJob()
                statements.forgetBounds()
                logger.error("a write failed and was rolled back: \(error)")
                rolledBack.append((job, StoreError("the database refused a write", error)))
            }
        }
        do {
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            // The bounds counted the rows the batch cut, which the rollback put back.
            statements.forgetBounds()
            logger.error("commit failed; \(jobs.count) writes are not acknowledged: \(error)")
            return failEvery(StoreError("the database could not commit", error))
        }
        // A job rolled back to its savepoint says nothing of the others' writes: a batch
        // with one proves nothing either way.
        if rolledBack.isEmpty { batchFailure.withLock { $0 = nil } }
        for digest in batch.removed { cache.remove(digest: digest) }
        for (digest, change) in batch.changed {
            if let key = change.key { cache.put(key, digest: digest, change.state) } else { cache.put(digest: digest, change.state) }
        }
        answer(committed + rolledBack.map { job, error in { job.failed(error) } }, releasing: jobs)
    }
}
