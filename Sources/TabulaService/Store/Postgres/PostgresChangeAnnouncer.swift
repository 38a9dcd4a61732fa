import Logging
import TabulaPlatform
import TabulaPostgres

/// Announces committed changes to every instance (``PostgresChangeListener`` hears them),
/// from a thread and a connection of its own: the pool's workers, whose time bounds the
/// commits a second, only queue them, and the announcements that queue up meanwhile go out
/// together, in one statement. Each goes after its change committed, so a listener that
/// reads the session finds it.
final class PostgresChangeAnnouncer: Sendable {
    private let url: String
    private let logger: Logger
    private let queue = BlockingQueue<String>(capacity: 100_000)
    private let thread = Locked<WorkerThread?>(nil)
    static let gatherMicroseconds: UInt32 = 3_000

    init(url: String, logger: Logger) {
        self.url = url
        self.logger = logger
        thread.withLock { $0 = WorkerThread.start { [self] in run() } }
    }

    /// Queues announcements (payloads of ``PostgresChangeListener/payload(id:revision:)``).
    func announce(_ payloads: [String]) {
        for payload in payloads where !queue.push(payload) {
            logger.warning("PostgreSQL: too many changes wait to be announced to other instances; their streams catch up at their next check")
            return
        }
    }

    /// Sends what is queued, then stops.
    func stop() {
        queue.close()
        thread.withLock { $0 }?.join()
        thread.withLock { $0 = nil }
    }

    private func run() {
        var connection: PostgresConnection?
        while var payloads = queue.take(maximum: 1000) {
            // Announcements made within a few milliseconds go out in one transaction: each
            // transaction that notifies takes PostgreSQL's notification queue lock and
            // signals every listening instance (Scripts/bench-events' PostgreSQL figures).
            usleep(Self.gatherMicroseconds)
            payloads += queue.take(maximum: 1000, timeout: 0) ?? []
            // One try with the open connection, one more with a new one: a connection the
            // server closed while idle is found by the first.
            for attempt in 0..<2 {
                do {
                    if connection == nil || connection?.isIdleAndQuiet == false { connection = try PostgresConnection(url: url) }
                    guard let open = connection else { break }
                    // Ids and revisions hold no line break.
                    try open.execute(
                        "SELECT pg_notify('\(PostgresChangeListener.channel)', payload) FROM unnest(string_to_array($1, E'\\n')) AS payload",
                        [.text(payloads.joined(separator: "\n"))])
                    break
                } catch {
                    connection = nil
                    if attempt == 1 {
                        logger.warning(
                            "PostgreSQL: could not announce \(payloads.count) changes to other instances (\(error)); their streams catch up at their next check"
                        )
                    }
                }
            }
        }
    }
}
