internal import CMicroHTTPD
import TabulaPlatform

/// Closes connections whose request head (line and headers) is not complete within
/// ``ServerConfiguration/headerTimeoutSeconds`` of its first bytes. libmicrohttpd's own
/// timeout counts from the last byte, so a client sending a header line every few seconds
/// would hold its connection for ever.
///
/// libmicrohttpd tells nothing before a head is complete, so a pass every half second looks
/// at each connection waiting for a request: the kernel's count of bytes received on its
/// socket growing while no request began means a head is arriving. Closing is a shutdown
/// of the socket, which libmicrohttpd sees on its own thread. A connection is closed
/// between the timeout and a second after it.
enum HeaderTimeout {
    /// What the last pass saw of a connection.
    struct Mark {
        var bytesReceived: Int64 = 0
        var requestsBegun: UInt = 0
        var requestInProgress = false
        /// When the pass first saw bytes of a head that is not complete yet.
        var headSeenAt: Int64?
    }

    static let passIntervalNanoseconds: Int64 = 500_000_000

    /// One pass over a connection: updates its mark and says whether its head is late.
    static func isLate(_ info: ConnectionInfo, now: Int64, timeoutNanoseconds: Int64) -> Bool {
        let begun = info.activity.requestsBegun
        guard info.activity.isIdle else {
            info.headerMark = Mark(bytesReceived: info.headerMark.bytesReceived, requestsBegun: begun, requestInProgress: true)
            return false
        }
        let bytes = Int64(tabula_bytes_received(info.socket))
        guard bytes >= 0 else { return false }
        var mark = info.headerMark
        defer { info.headerMark = mark }
        // A request ran since the last pass: what arrived so far belongs to it.
        if mark.requestInProgress || begun != mark.requestsBegun {
            mark = Mark(bytesReceived: bytes, requestsBegun: begun)
            return false
        }
        if bytes > mark.bytesReceived, mark.headSeenAt == nil { mark.headSeenAt = now }
        mark.bytesReceived = bytes
        guard let seen = mark.headSeenAt else { return false }
        return now - seen >= timeoutNanoseconds
    }
}
