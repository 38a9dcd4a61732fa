import Logging
import TabulaPlatform
import TabulaPostgres

/// Hears what every instance commits: one connection of its own (not from the pool, whose
/// connections run transactions) listens on ``channel``, where each commit of a change is
/// announced after it committed (``PostgresChangeAnnouncer``), as `ID:REVISION` (or
/// `ID:deleted`). PostgreSQL drops
/// notifications sent while nobody listens, so after the connection is lost and opened
/// again the listener says ``StoreNotice/resynchronize``: whoever relies on it reads again
/// what it follows.
final class PostgresChangeListener: Sendable {
    static let channel = "tabula_sessions"

    private let url: String
    private let logger: Logger
    private let observer: @Sendable (StoreNotice) -> Void
    private let stopping = Locked(false)
    private let thread = Locked<WorkerThread?>(nil)

    init(url: String, logger: Logger, observer: @escaping @Sendable (StoreNotice) -> Void) {
        self.url = url
        self.logger = logger
        self.observer = observer
        thread.withLock { $0 = WorkerThread.start { [self] in run() } }
    }

    /// Stops listening; returns once the connection is closed.
    func stop() {
        stopping.withLock { $0 = true }
        thread.withLock { $0 }?.join()
        thread.withLock { $0 = nil }
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func run() {
        var delay = 0.1
        var wasConnected = true
        while !isStopping {
            do {
                let connection = try PostgresConnection(url: url)
                try connection.execute("LISTEN \(Self.channel)")
                if !wasConnected { logger.notice("PostgreSQL: listening for other instances' changes again") }
                wasConnected = true
                delay = 0.1
                // Whatever was committed while nobody here listened is read again.
                observer(.resynchronize)
                while !isStopping {
                    for notification in try connection.notifications(waitingUpTo: 0.5) {
                        if let notice = Self.notice(notification.payload) { observer(notice) }
                    }
                }
            } catch {
                if wasConnected { logger.warning("PostgreSQL: the connection that listens for other instances' changes failed (\(error)); connecting again") }
                wasConnected = false
                // Waited in short steps, so that stopping is not held up.
                let until = ContinuousClock.now + .milliseconds(Int(delay * 1000))
                while !isStopping && ContinuousClock.now < until { usleep(50_000) }
                delay = min(delay * 2, 2)
            }
        }
    }

    /// The payload of a change: `ID:REVISION`, or `ID:deleted`.
    static func payload(id: String, revision: Int?) -> String {
        "\(id):\(revision.map(String.init) ?? "deleted")"
    }

    static func notice(_ payload: String) -> StoreNotice? {
        guard let colon = payload.lastIndex(of: ":") else { return nil }
        let id = String(payload[..<colon])
        let rest = payload[payload.index(after: colon)...]
        if rest == "deleted" { return .removed(id: id) }
        return Int(rest).map { .changed(id: id, revision: $0) }
    }
}
