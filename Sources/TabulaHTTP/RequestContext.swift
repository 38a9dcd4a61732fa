internal import CMicroHTTPD
import Synchronization

/// The server's state for one request, from its first byte to libmicrohttpd's
/// completion callback. It lives in the request's `con_cls` slot.
final class RequestContext: RequestSlotEntry, @unchecked Sendable {
    /// The MHD connection; valid until the completion callback.
    let connection: OpaquePointer
    let receivedAt: ContinuousClock.Instant
    let method: String
    let rawURL: String
    let version: String
    var headers = RequestHeaders()
    var clientAddress = ""
    /// The connection's activity, which the request keeps up to date (`nil` when the
    /// connection's notification did not come, which libmicrohttpd always sends).
    var activity: ConnectionActivity?

    // Touched only by the connection's own server thread, in access-handler calls.
    var body: [UInt8] = []
    /// When the body went over the limit (``SystemClock/monotonicNanoseconds()``); its rest
    /// is read and discarded from then on.
    var discardingSince: Int64?
    var dispatched = false
    /// Set when the server refused the request itself; the rest of its body is discarded.
    var refusal: RejectionReason?
    var queued = false
    var statusSent = 0
    var route = "-"
    var logContext: String?
    var rejection: String?
    /// The stream the request answers with, once queued.
    var stream: ServerStream?

    /// The hand-over of the response between the handler (any thread) and the connection's
    /// thread, without a lock: a ``DeliveryState``, moved by ``DeliveryStateMachine``.
    let delivery = Atomic<Int>(DeliveryState.dispatching.rawValue)
    /// Claimed by the first ``Responder/send(_:)``; later calls do nothing.
    let claimed = Atomic<Bool>(false)
    /// Written before `delivery` moves past `dispatching`, read after (release/acquire).
    var response: Response?

    init(connection: OpaquePointer, method: String, rawURL: String, version: String) {
        self.connection = connection
        self.method = method
        self.rawURL = rawURL
        self.version = version
        receivedAt = .now
        super.init(isQuick: false)
    }
}
