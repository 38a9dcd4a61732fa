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
/// the connection). Only the connection's own thread touches it.
final class QuickRequest: RequestSlotEntry, @unchecked Sendable {
    let answer: QuickAnswer
    /// The request target, for the access log.
    let path: String
    let receivedAt: ContinuousClock.Instant
    let clientAddress: String
    var queued = false

    init(answer: QuickAnswer, path: String, receivedAt: ContinuousClock.Instant, clientAddress: String) {
        self.answer = answer
        self.path = path
        self.receivedAt = receivedAt
        self.clientAddress = clientAddress
        super.init(isQuick: true)
    }
}
