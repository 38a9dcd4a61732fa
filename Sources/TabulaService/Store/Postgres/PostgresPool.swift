import Logging
import TabulaPlatform
import TabulaPostgres

/// A bounded pool: `size` worker threads, each owning one connection, run jobs from one
/// queue. The HTTP threads only enqueue (their connections are suspended meanwhile), so
/// the network never blocks them; a job that waits longer than `queueTimeout` in the
/// queue fails instead of piling up. A connection the server closed while it sat idle (a
/// restart) is replaced before the next job; one that breaks during a job fails that job
/// and is replaced on the next.
final class PostgresPool: @unchecked Sendable {
    struct Job: Sendable {
        let enqueued: ContinuousClock.Instant
        let run: @Sendable (PostgresConnection) throws(PostgresError) -> Void
        let failed: @Sendable (StoreError) -> Void
    }

    private let url: String
    private let logger: Logger
    private let queue = BlockingQueue<Job>(capacity: 10_000)
    private let queueTimeout: Duration
    private var workers: [WorkerThread] = []

    init(url: String, size: Int, logger: Logger, queueTimeout: Duration = .seconds(5)) {
        self.url = url
        self.logger = logger
        self.queueTimeout = queueTimeout
        for _ in 0..<max(1, size) {
            workers.append(WorkerThread.start { [self] in work() })
        }
    }

    /// Queues a job; it fails at once when the pool is overloaded or closed.
    func submit(
        _ run: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> Void,
        failed: @escaping @Sendable (StoreError) -> Void
    ) {
        guard queue.push(Job(enqueued: .now, run: run, failed: failed)) else {
            failed(StoreError("the PostgreSQL pool is overloaded or closing"))
            return
        }
    }

    func close() {
        queue.close()
        for worker in workers { worker.join() }
        workers = []
    }

    private func work() {
        var connection: PostgresConnection?
        while let jobs = queue.take(maximum: 1) {
            for job in jobs {
                if ContinuousClock.now - job.enqueued > queueTimeout {
                    job.failed(StoreError("the database did not get to the request within \(queueTimeout)"))
                    continue
                }
                do {
                    if let open = connection, !open.isIdleAndQuiet {
                        // Found before the job runs, so the job need not fail for it.
                        logger.notice("PostgreSQL: the server closed a pooled connection; connecting again")
                        connection = nil
                    }
                    if connection == nil {
                        connection = try PostgresConnection(url: url)
                    }
                    guard let connection else { continue }
                    try job.run(connection)
                } catch {
                    // A failed statement may have left the connection unusable: start afresh.
                    if !error.isConflict { connection = nil }
                    if error.isCorruption {
                        logger.error("PostgreSQL: damaged data, answered 500 store-corrupt and written over by nothing: \(error)")
                        job.failed(StoreError("PostgreSQL failed", databaseMessage: "\(error)", isOwn: error.isOwnMessage, kind: .corrupt))
                    } else {
                        logger.warning("PostgreSQL: \(error)")
                        job.failed(StoreError("PostgreSQL failed", databaseMessage: "\(error)", isOwn: error.isOwnMessage))
                    }
                }
            }
        }
    }
}
