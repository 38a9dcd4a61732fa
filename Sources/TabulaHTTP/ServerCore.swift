internal import CMicroHTTPD
import HTTPTypes
import Logging
import Synchronization
import TabulaPlatform

/// The server's shared state, passed to libmicrohttpd's callbacks as their `cls`.
final class ServerCore: @unchecked Sendable {
    let configuration: ServerConfiguration
    let handler: any HTTPHandler
    let observer: any HTTPServerObserver
    let logger: Logger

    /// The daemon, and requests parked while their answer is computed elsewhere (so that a
    /// shutdown can answer them). Touched on slow paths only.
    struct State {
        var daemon: OpaquePointer?
        var suspended: [ObjectIdentifier: RequestContext] = [:]
        /// Set by a shutdown once it answered the parked requests: a request parked from
        /// then on is answered with a refusal at once, so that every suspended connection
        /// has its answer, and is resumed, before the daemon stops (libmicrohttpd aborts
        /// the process when it is stopped with a connection still suspended).
        var refusesToPark = false
        /// Every streamed response in progress (``ServerStream``), so that a shutdown can
        /// end them and stop the daemon only once none is suspended.
        var streams: [ObjectIdentifier: ServerStream] = [:]
        /// Set by a shutdown: streams end now, and a stream that starts later ends at once.
        var endsStreams = false

        /// Parked requests and suspended streams.
        var suspendedConnections: Int {
            suspended.count + streams.values.count(where: \.isSuspended)
        }
    }

    let state = Locked(State())
    let accepting = Atomic<Bool>(true)
    let stopped = Atomic<Bool>(false)
    /// Requests in progress and quick answers, counted on each thread's own cache lines
    /// (one shared counter cost every request a line passed between cores).
    let counts = RequestCounts()
    /// `MHD_resume_connection` calls under way; the daemon is stopped only at zero. It and
    /// ``stopped`` are each written by one side and read by the other, so both sides use
    /// sequentially consistent order: with acquire and release alone, each could miss the
    /// other's write.
    let resumesInProgress = Atomic<Int>(0)
    /// Open connections per client address, for the per-address limit.
    private let connectionsByAddress = Locked<[String: Int]>([:])
    /// Every open connection, so that a shutdown can close the idle ones. Entries leave at
    /// the connection's close notification, which libmicrohttpd sends before it closes the
    /// socket: a socket read under this lock is the connection's own.
    private let openConnections = Locked<[ObjectIdentifier: ConnectionInfo]>([:])
    /// Read once: whether GETs get a header pass for ``HTTPHandler/quickAnswer(_:)``.
    let offersUnparsedGets: Bool

    init(configuration: ServerConfiguration, handler: any HTTPHandler, observer: any HTTPServerObserver, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.logger = logger
        offersUnparsedGets = handler.answersUnparsedGets
    }

    // MARK: Connections

    /// Accept-policy callback: admits a new connection unless its address is at the limit.
    func admit(_ address: String) -> Bool {
        let limit = configuration.maxConnectionsPerIP
        let admitted = connectionsByAddress.withLock { counts -> Bool in
            let open = counts[address, default: 0]
            guard limit == 0 || open < limit else { return false }
            counts[address] = open + 1
            return true
        }
        if !admitted { observer.requestRejected(.connectionLimit) }
        return admitted
    }

    /// A connection admitted by ``admit(_:)`` closed.
    func release(_ address: String) {
        connectionsByAddress.withLock { counts in
            let open = counts[address, default: 0] - 1
            counts[address] = open > 0 ? open : nil
        }
    }

    /// A connection started (its notification).
    func opened(_ info: ConnectionInfo) {
        openConnections.withLock { $0[ObjectIdentifier(info)] = info }
    }

    /// A connection closed (its notification, before libmicrohttpd closes its socket).
    func closed(_ info: ConnectionInfo) {
        openConnections.withLock { $0[ObjectIdentifier(info)] = nil }
        release(info.address)
    }

    /// Closes the connections whose request head is late (one pass of ``HeaderTimeout``).
    func closeLateHeads(now: Int64) {
        let timeout = Int64(configuration.headerTimeoutSeconds) * 1_000_000_000
        var closed = 0
        openConnections.withLock { connections in
            for info in connections.values where info.socket >= 0 && HeaderTimeout.isLate(info, now: now, timeoutNanoseconds: timeout) {
                shutdownSocket(info.socket, Int32(SHUT_RDWR))
                info.headerMark.headSeenAt = nil
                closed += 1
            }
        }
        for _ in 0..<closed { observer.requestRejected(.headerTimeout) }
    }

    /// Closes the connections that wait for their next request, at the start of a
    /// shutdown: a client (a proxy's connection pool) then opens a new connection, to
    /// another instance, instead of sending its next request to one that is stopping.
    /// Reading is shut down: libmicrohttpd sees the end of the stream and closes the
    /// connection on its own thread. A request that arrives in that instant is lost as on
    /// any closing keep-alive connection, which clients retry when it is idempotent.
    func closeIdleConnections() {
        openConnections.withLock { connections in
            for info in connections.values where info.activity.isIdle && info.socket >= 0 {
                shutdownSocket(info.socket, Int32(SHUT_RD))
            }
        }
    }
}
