import TabulaPlatform

/// What a request's `con_cls` slot holds: a ``RequestContext`` for the full path, or a
/// ``QuickRequest`` for a unparsed GET its handler answered at once. A stored flag tells them
/// apart, so the callbacks need no dynamic cast.
class RequestSlotEntry: @unchecked Sendable {
    final let isQuick: Bool

    init(isQuick: Bool) {
        self.isQuick = isQuick
    }
}

/// A unparsed GET answered by ``HTTPHandler/quickAnswer(_:)``: the answer is known from the
/// first access-handler call and queued on the second (queueing on the first would close
/// the connection). One per connection, made with it (``ConnectionInfo/quickRequest``) and
/// reused by each of its quick requests, so that a quick answer allocates nothing: libmicrohttpd serves a connection's
/// requests one at a time, each one's completion before the next one's first call, all on
/// the connection's own thread, the only one that touches this.
final class QuickRequest: RequestSlotEntry, @unchecked Sendable {
    /// Kept from ``begin(answer:target:receivedAt:)`` to ``end()``: its owner keeps the
    /// response alive.
    private(set) var answer: QuickAnswer?
    /// The response's `MHD_Response`, copied out at `begin` (its status goes to the summary),
    /// so that queueing it retains nothing: the response is a session's, shared by every
    /// thread that serves the session, and each retain would write its reference count's line.
    private(set) var responseHandle: OpaquePointer?
    /// What the observer is told at completion, kept with the connection and updated in
    /// place: its strings stay from one request to the next (method, client, and the target
    /// while it has the same bytes, a client polling its screen) instead of being made and
    /// retained anew for each request.
    private(set) var summary: RequestSummary
    /// The target's bytes, to compare the next target with.
    private var pathBytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var pathLength = 0
    /// ``SystemClock/monotonicNanoseconds()`` when the request's headers were in.
    private(set) var receivedAt: Int64 = 0
    var queued = false
    /// The connection's activity, which the quick request keeps up to date.
    let activity: ConnectionActivity

    init(clientAddress: String, activity: ConnectionActivity) {
        self.activity = activity
        summary = RequestSummary(
            method: "GET", path: "", status: 0, route: "", durationNanoseconds: 0, remoteAddress: clientAddress)
        super.init(isQuick: true)
    }

    deinit {
        pathBytes.deallocate()
    }

    /// Takes up the next request on the connection.
    func begin(answer: consuming QuickAnswer, target: UnsafeRawBufferPointer, receivedAt: Int64) {
        activity.begin()
        (responseHandle, summary.status) = answer.unretainedResponse._withUnsafeGuaranteedRef { ($0.handle, $0.status.code) }
        summary.route = answer.route
        summary.logContext = answer.logContext
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
            summary.path = String(decoding: target, as: UTF8.self)
        }
    }

    /// Whether the summary's path has these bytes.
    private func holdsPath(_ target: UnsafeRawBufferPointer) -> Bool {
        guard target.count == pathLength else { return false }
        guard let new = target.baseAddress, let kept = pathBytes.baseAddress else { return target.isEmpty }
        return memcmp(new, kept, target.count) == 0
    }

    /// The answer is sent: the summary takes the request's duration.
    func finish(at nanoseconds: Int64) {
        summary.durationNanoseconds = max(0, nanoseconds - receivedAt)
    }

    /// The request is over: lets go of its answer, which may hold a session's only
    /// reference to an old response.
    func end() {
        activity.end()
        answer = nil
        responseHandle = nil
        summary.logContext = nil
    }
}
