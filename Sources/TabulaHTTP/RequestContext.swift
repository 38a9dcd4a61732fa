internal import CMicroHTTPD
import HTTPTypes

/// The server's state for one request, from its first byte to libmicrohttpd's
/// completion callback. It lives in the request's `con_cls` slot.
final class RequestContext: @unchecked Sendable {
    /// The MHD connection; valid until the completion callback.
    let connection: OpaquePointer
    let receivedAt: ContinuousClock.Instant
    let method: String
    let rawURL: String
    let version: String
    var headerFields = HTTPFields()
    var remoteAddress = ""

    // Touched only by the connection's own server thread, in access-handler calls.
    var body: [UInt8] = []
    var discardedBodyBytes = 0
    var dispatched = false
    /// Set when the server refused the request itself; the rest of its body is discarded.
    var refusal: RejectionReason?

    /// The hand-over between the handler (any thread) and the connection's thread.
    struct Delivery {
        var response: Response?
        var suspended = false
        var queued = false
        var statusSent = 0
        var route = "-"
        var logContext: String?
    }

    let delivery = Locked(Delivery())

    init(connection: OpaquePointer, method: String, rawURL: String, version: String) {
        self.connection = connection
        self.method = method
        self.rawURL = rawURL
        self.version = version
        receivedAt = .now
    }
}
