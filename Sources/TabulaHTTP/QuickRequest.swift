#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a request's `con_cls` slot holds: a ``RequestContext`` for the full path, or a
/// ``QuickRequest`` for a plain GET its handler answered at once. A stored flag tells them
/// apart, so the callbacks need no dynamic cast.
class RequestSlotEntry: @unchecked Sendable {
    final let isQuick: Bool

    init(isQuick: Bool) {
        self.isQuick = isQuick
    }
}

/// A plain GET answered by ``HTTPHandler/quickAnswer(_:)``: the answer is known from the
/// first access-handler call and queued on the second (queueing on the first would close
/// the connection). One per connection, made with it (``ConnectionInfo/quickRequest``) and
/// reused by each of its quick requests, so that a quick answer allocates nothing: libmicrohttpd serves a connection's
/// requests one at a time, each one's completion before the next one's first call, all on
/// the connection's own thread, the only one that touches this.
final class QuickRequest: RequestSlotEntry, @unchecked Sendable {
    let clientAddress: String
    /// Kept from ``begin(answer:target:receivedAt:)`` to ``end()``: it keeps the response alive.
    private(set) var answer: QuickAnswer?
    /// The answer's `MHD_Response` and status, copied out at `begin`, so that queueing and
    /// reporting it retain nothing: the response is a session's, shared by every thread
    /// that serves the session, and each retain would write its reference count's line.
    private(set) var responseHandle: OpaquePointer?
    private(set) var statusCode = 0
    /// The request target, for the access log. Kept while the next request's target has the
    /// same bytes (a client polling its screen), so that it is made once, not per request.
    private(set) var path = ""
    /// `path`'s bytes, to compare the next target with.
    private var pathBytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var pathLength = 0
    /// ``SystemClock/monotonicNanoseconds()`` when the request's headers were in.
    private(set) var receivedAt: Int64 = 0
    var queued = false

    init(clientAddress: String) {
        self.clientAddress = clientAddress
        super.init(isQuick: true)
    }

    deinit {
        pathBytes.deallocate()
    }

    /// Takes up the next request on the connection.
    func begin(answer: consuming QuickAnswer, target: UnsafeRawBufferPointer, receivedAt: Int64) {
        responseHandle = answer.response.handle
        statusCode = answer.response.status.code
        self.answer = consume answer
        self.receivedAt = receivedAt
        queued = false
        if !holdsPath(target) {
            if target.count > pathBytes.count {
                pathBytes.deallocate()
                pathBytes = .allocate(byteCount: max(64, target.count), alignment: 1)
            }
            pathBytes.copyMemory(from: target)
            pathLength = target.count
            path = String(decoding: target, as: UTF8.self)
        }
    }

    /// Whether `path` has these bytes.
    private func holdsPath(_ target: UnsafeRawBufferPointer) -> Bool {
        guard target.count == pathLength else { return false }
        guard let new = target.baseAddress, let kept = pathBytes.baseAddress else { return target.isEmpty }
        return memcmp(new, kept, target.count) == 0
    }

    /// The request is over: lets go of its answer, which may be a session's only reference
    /// to an old response.
    func end() {
        answer = nil
        responseHandle = nil
    }
}
