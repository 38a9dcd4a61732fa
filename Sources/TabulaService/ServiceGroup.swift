public import Logging
public import TabulaHTTP
import TabulaPlatform

/// What a running Tabula is made of, started and stopped in one order, by `tabula serve`
/// and by the tests' servers alike: the store (opened by its owner), the service around it,
/// the watchers of its definitions and the HTTP server. It starts the watchers before the
/// server (a file saved once the server answers is never missed) and the server last; it
/// stops in the reverse order: watchers, the server (gracefully: requests in progress are
/// answered), the service's threads (streams, paused refusals, the worker pool, which
/// answers may still need until the server stopped), then the store, whose queued writes
/// finish last.
public final class ServiceGroup: Sendable {
    public let store: any SessionStore
    public let service: TabulaService
    public let server: HTTPServer
    /// Whether stopping closes the store (a test that opens the store again after a stop
    /// closes it itself).
    private let closesStore: Bool
    private let watchers = Locked<[DirectoryWatcher]>([])
    private let state = Locked<Phase>(.ready)

    private enum Phase { case ready, running, stopped }

    /// The group of `service` on `store`, served by a server of `configuration`.
    public init(store: any SessionStore, service: TabulaService, server configuration: ServerConfiguration, logger: Logger, closesStore: Bool = true) {
        self.store = store
        self.service = service
        self.closesStore = closesStore
        server = HTTPServer(configuration: configuration, handler: service, observer: service.observer, logger: logger)
    }

    /// Starts the watchers of `directory` (when `watch`), then the server. A server that
    /// cannot start stops what was started and throws.
    public func start(watching directory: DefinitionDirectory? = nil) throws(HTTPServerError) {
        state.withLock { $0 = .running }
        if let directory {
            let service = self.service
            watchers.withLock { $0 = directory.watchedDirectories.map { DirectoryWatcher(directory: $0) { service.reload(from: directory) } } }
        }
        do {
            try server.start()
        } catch {
            stop()
            throw error
        }
        service.attach(server)
    }

    /// The directories watched and how, for the start-up log.
    public var watching: [(directory: String, method: String)] {
        watchers.withLock { $0.map { ($0.directory, $0.method) } }
    }

    /// Blocks until SIGTERM or SIGINT, reloading on each SIGHUP; returns the signal that
    /// stopped it. The three signals must have been blocked (`blockStopSignals()`) before
    /// any thread started, so that this thread alone receives them.
    public func waitForStopSignal(onReload reload: () -> Void) -> Int32 {
        Self.waitForStopSignal(onReload: reload)
    }

    /// ``waitForStopSignal(onReload:)`` for a process that serves something else.
    public static func waitForStopSignal(onReload reload: () -> Void) -> Int32 {
        var signals = Self.stopSignals
        var received: Int32 = 0
        while sigwait(&signals, &received) == 0, received == SIGHUP {
            reload()
        }
        return received
    }

    /// Blocks SIGTERM, SIGINT and SIGHUP for the calling thread and every thread it starts
    /// later, and ignores SIGPIPE and SIGXFSZ: call first thing, before any thread starts. A
    /// file past the process's size limit (`ulimit -f`) is then a failed write, which the
    /// store answers 503 and `/healthz` reports, not the end of the process.
    public static func blockStopSignals() {
        var signals = stopSignals
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
    }

    static var stopSignals: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGHUP)
        return signals
    }

    /// Stops everything, in order; once.
    public func stop() {
        let wasRunning = state.withLock { phase -> Bool in
            defer { phase = .stopped }
            return phase != .stopped
        }
        guard wasRunning else { return }
        for watcher in watchers.withLock({ $0 }) { watcher.stop() }
        // A request still running when the server gave up holds the service and the store:
        // they are left open, as the server is, to the process's exit.
        guard server.shutdown() else { return }
        service.close()
        if closesStore { store.close() }
    }
}
