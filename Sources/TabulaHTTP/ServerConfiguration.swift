import TabulaPlatform

/// How the server listens and the limits that protect it. libmicrohttpd's own defaults
/// are unsafe for a public service (no idle timeout, no body limit), so every limit here
/// has a finite default.
public struct ServerConfiguration: Sendable {
    /// The address to listen on: an IPv4 or IPv6 literal.
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one (see ``HTTPServer/port``).
    public var port: UInt16 = 8080
    /// Worker threads, each polling its share of the connections: one per processor and one
    /// more, so that a thread that is descheduled (preempted by another process, waiting on
    /// a lock or a page) does not leave a processor idle while its connections wait; it
    /// trades a few `GET`s for more events. `PAIRS_B="--threads N" Scripts/bench-pairs`
    /// measures the trade on a machine.
    public var threads = ServerConfiguration.processorCount + 1
    /// The largest request body accepted; larger ones get 413 and the connection is closed.
    public var maxBodyBytes = 64 * 1024
    /// Idle connections are closed after this many seconds.
    public var connectionTimeoutSeconds = 30
    /// A request's line and headers must arrive within this many seconds of their first
    /// bytes, however slowly they trickle; the connection is closed otherwise
    /// (``HeaderTimeout``).
    public var headerTimeoutSeconds = 10
    /// Open connections in all; connections beyond it are closed at once.
    public var maxConnections = 2048
    /// Streamed responses (Server-Sent Events) the server holds open besides
    /// ``maxConnections``: the connection limit and the open-file limit make room for both.
    public var maxStreams = 0
    /// How long a stream's connection may hold sent bytes its client has not acknowledged
    /// before the kernel closes it (TCP_USER_TIMEOUT), in seconds; `nil` leaves the kernel's
    /// default. A client that vanished without closing (a network switch, a laptop gone to
    /// sleep) acknowledges no heartbeat: its stream ends this long after the first one, not
    /// after TCP's own retries, which take about a quarter of an hour.
    public var streamUnacknowledgedSeconds: Int?
    /// Open connections from one client address (0: no limit). Behind a load balancer all
    /// connections come from its address: raise this or set it to 0 there.
    public var maxConnectionsPerIP = 512
    /// Memory per connection for the request line and headers; requests whose headers do
    /// not fit are refused with 431. 8 KiB fits headers of about 7,500 bytes (Tomcat's and
    /// Jetty's default is 8 KiB too). libmicrohttpd clears the whole of it after every
    /// request and it is touched again by the next, so a larger limit costs every request,
    /// not only large ones (`PAIRS_B="--connection-memory-limit 32768" Scripts/bench-pairs`
    /// measures it).
    public var connectionMemoryLimit = 8 * 1024
    /// Pending connections the kernel queues before the server accepts them.
    public var listenBacklog = 511
    /// How long a graceful shutdown waits for requests in progress.
    public var shutdownGraceSeconds = 8.0

    public init() {}

    /// The connections libmicrohttpd admits: ``maxConnections`` for requests plus
    /// ``maxStreams`` for streams (a stream holds its connection), saturating rather than
    /// overflowing.
    public var connectionLimit: Int {
        let (sum, overflow) = max(0, maxConnections).addingReportingOverflow(max(0, maxStreams))
        return overflow ? Int.max : sum
    }

    public static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
