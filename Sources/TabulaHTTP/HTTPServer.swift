internal import CMicroHTTPD
public import Logging
import TabulaPlatform

/// Why the server could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The embedded HTTP/1.1 server: libmicrohttpd with an internal polling thread per
/// worker (`poll`, not `epoll`: 0.9.75's epoll loop stalls when exactly 128, 256 or 384
/// connections are ready at once), suspend/resume for answers that arrive later, and the
/// limits of ``ServerConfiguration``. The per-address limit is enforced here rather than
/// by libmicrohttpd, which refuses silently, so that refusals reach the observer.
public final class HTTPServer: Sendable {
    private let core: ServerCore
    private let retained: Unmanaged<ServerCore>
    private let boundPort = Locked<UInt16>(0)
    /// The thread of the header timeout's passes, and what stops it.
    private let headerTimeoutPasses = Locked<(thread: WorkerThread, stop: BlockingQueue<Void>)?>(nil)

    public init(
        configuration: ServerConfiguration, handler: any HTTPHandler, observer: any HTTPServerObserver,
        logger: Logger
    ) {
        core = ServerCore(configuration: configuration, handler: handler, observer: observer, logger: logger)
        // libmicrohttpd holds the core as its callbacks' `cls` until the daemon stops.
        retained = Unmanaged.passRetained(core)
    }

    deinit {
        // A daemon that ``shutdown()`` left running (a handler that never returned) still
        // calls back with the core as `cls`: it stays, for the process's exit to end.
        if core.state.withLock({ $0.daemon == nil }) { retained.release() }
    }

    /// Binds and starts serving on the configured address.
    public func start() throws(HTTPServerError) {
        let configuration = core.configuration
        guard let (initialAddress, isIPv6) = SocketAddress.make(host: configuration.host, port: configuration.port) else {
            throw HTTPServerError(description: "cannot listen on \"\(configuration.host)\": give an IPv4 or IPv6 address such as 127.0.0.1 or 0.0.0.0")
        }
        var address = initialAddress
        let connectionLimit = configuration.connectionLimit
        raiseFileLimit(for: connectionLimit)
        var flags = MHD_USE_POLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let daemon = withUnsafePointer(to: &address) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                var settings = tabula_daemon_settings(
                    flags: flags, address: socketAddress,
                    access_handler: MHDCallbacks.accessHandler, request_completed: MHDCallbacks.requestCompleted,
                    logger: MHDCallbacks.logger, accept_policy: MHDCallbacks.acceptPolicy,
                    notify_connection: MHDCallbacks.notifyConnection, uri_logger: MHDCallbacks.targetCheck,
                    context: retained.toOpaque(),
                    thread_pool_size: UInt32(clamping: max(1, configuration.threads)),
                    connection_timeout_seconds: UInt32(clamping: max(1, configuration.connectionTimeoutSeconds)),
                    connection_limit: UInt32(clamping: max(1, connectionLimit)),
                    connection_memory_limit: max(4096, configuration.connectionMemoryLimit),
                    listen_backlog: UInt32(clamping: max(1, configuration.listenBacklog)))
                return tabula_start_daemon(&settings)
            }
        }
        guard let daemon else {
            let reason = errno == EADDRINUSE ? "the port is in use" : String(cString: strerror(errno))
            throw HTTPServerError(description: "cannot listen on \(configuration.host):\(configuration.port): \(reason)")
        }
        core.state.withLock { $0.daemon = daemon }
        boundPort.withLock { $0 = tabula_bound_port(daemon) }
        startHeaderTimeout()
    }

    private func startHeaderTimeout() {
        let stop = BlockingQueue<Void>(capacity: 1)
        let interval = Double(HeaderTimeout.passIntervalNanoseconds) / 1e9
        let thread = WorkerThread.start { [core] in
            // `take` returns [] after each interval and nil once closed.
            while stop.take(maximum: 1, timeout: interval) != nil {
                core.closeLateHeads(now: SystemClock.monotonicNanoseconds())
            }
        }
        headerTimeoutPasses.withLock { $0 = (thread, stop) }
    }

    /// The port the server listens on (the chosen one when configured with port 0).
    public var port: UInt16 { boundPort.withLock { $0 } }

    /// Open client connections right now.
    public var openConnections: Int {
        core.state.withLock { state in state.daemon.map { Int(tabula_current_connections($0)) } ?? 0 }
    }

    /// Requests answered by the handler's ``HTTPHandler/quickAnswer(_:)`` since the start.
    public var quickAnswerCount: Int { core.counts.total(.quickAnswers) }

    /// Requests between their first byte and their completion.
    public var requestsInProgress: Int { core.counts.total(.inProgress) }

    /// Stops gracefully: stops accepting (new connections are refused), closes the open
    /// connections that wait for a request, ends every stream (at once: clients reconnect
    /// elsewhere), lets requests in progress finish for up to the
    /// configured grace, answers still-parked ones with a refusal, then stops. Every answer
    /// sent meanwhile closes its connection (`Connection: close`), so a client sends its
    /// next request elsewhere. Returns whether the daemon stopped: `false` when a handler
    /// still runs, or a connection is still suspended, and the daemon is left running, with
    /// what its requests use.
    @discardableResult
    public func shutdown() -> Bool {
        core.accepting.store(false, ordering: .releasing)
        if let passes = headerTimeoutPasses.withLock({ $0.take() }) {
            passes.stop.close()
            passes.thread.join()
        }
        guard let daemon = core.state.withLock({ $0.daemon }) else { return true }
        // Shut down, the socket stops listening: new connections are refused from now on.
        // It is closed only after MHD_stop_daemon, as libmicrohttpd asks: a worker may still
        // be polling it, and a number closed early could be given to another socket.
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { shutdownSocket(listener, Int32(SHUT_RDWR)) }
        core.closeIdleConnections()
        let streams = core.state.withLock { state in
            state.endsStreams = true
            return Array(state.streams.values)
        }
        for stream in streams { stream.end() }
        let grace = core.configuration.shutdownGraceSeconds
        let deadline = ContinuousClock.now + .seconds(grace.isFinite ? min(max(0, grace), 86_400) : 0)
        // Connections answered before the shutdown began may turn idle later; each is closed
        // as it does, so that its client's next request goes elsewhere.
        waitUntil(deadline, closingIdleConnections: true) { [core] _ in core.counts.total(.inProgress) == 0 }
        // Ended streams send their last chunk on their connections' threads; a client that
        // reads nothing is not waited for long.
        waitUntil(.now + .seconds(1), closingIdleConnections: true) { $0.streams.isEmpty }
        let parked = core.state.withLock { state in
            state.refusesToPark = true
            return Array(state.suspended.values)
        }
        if !parked.isEmpty {
            core.logger.warning("shutdown grace over; answering \(parked.count) waiting requests with 503")
            for context in parked { core.deliver(core.handler.refusal(.shuttingDown, under: core.configuration), to: context) }
        }
        // Every parked request has its answer now, and its connection is resumed to send it;
        // every stream is ending and never waits again. The daemon may stop only once no
        // connection is suspended any more.
        waitUntil(.now + .seconds(5)) { $0.suspendedConnections == 0 }
        // A handler still running on its connection's thread (one that does not return, such
        // as a pattern rule that backtracks for minutes) would hold MHD_stop_daemon, which
        // joins that thread, for as long as it runs: the daemon is left to the process's exit.
        waitUntil(.now + .seconds(1)) { [core] _ in core.counts.total(.inHandler) == 0 }
        let running = core.counts.total(.inHandler)
        guard running == 0 else {
            core.logger.error("\(running) requests still running on their threads after the shutdown grace; stopping without them")
            return false
        }
        core.stopped.store(true, ordering: .sequentiallyConsistent)
        waitUntil(.now + .seconds(5)) { [core] _ in core.resumesInProgress.load(ordering: .sequentiallyConsistent) == 0 }
        let stillSuspended = core.state.withLock { $0.suspendedConnections }
        guard stillSuspended == 0 else {
            // Only a request that arrived after the last wait, and whose handler answered in
            // the same instant as the refusal, or a stream whose connection's thread did not
            // run for seconds, can be here. Stopping would abort the process
            // (libmicrohttpd's rule), which is about to exit anyway.
            core.logger.error("\(stillSuspended) connections still suspended after the shutdown; the daemon is left running")
            return false
        }
        MHD_stop_daemon(daemon)
        if listener >= 0 { close(listener) }
        core.state.withLock { $0.daemon = nil }
        return true
    }

    private func waitUntil(
        _ deadline: ContinuousClock.Instant, closingIdleConnections: Bool = false, _ condition: (ServerCore.State) -> Bool
    ) {
        while !core.state.withLock({ condition($0) }) && ContinuousClock.now < deadline {
            usleep(5_000)
            if closingIdleConnections { core.closeIdleConnections() }
        }
    }

    /// Each connection is a file descriptor; lift the soft limit toward the hard one.
    private func raiseFileLimit(for connections: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = rlim_t(clamping: connections) + 64
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < wanted {
            core.logger.warning("file descriptor limit \(limit.rlim_cur) is below --max-connections \(connections); raise `ulimit -n`")
        }
    }
}
