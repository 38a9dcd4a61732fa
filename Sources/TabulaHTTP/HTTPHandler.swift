public import HTTPTypes

/// Answers requests. `handle` runs on a server thread; it may send the response before it
/// returns (the fast path) or later from any thread, for example once a database commit
/// is done: the server parks the connection meanwhile and serves others.
public protocol HTTPHandler: Sendable {
    func handle(_ request: Request, responder: Responder)

    /// The answer for a request the server refuses before `handle` could see it (the
    /// status follows from the reason; the server closes the connection after it).
    func refusal(_ reason: RejectionReason) -> Response
}

extension RejectionReason {
    /// The status a refusal is answered with.
    public var status: HTTPResponse.Status {
        switch self {
        case .bodyTooLarge: .contentTooLarge
        case .duplicateContentLength, .contentLengthWithTransferEncoding, .malformedRequest: .badRequest
        case .unsupportedTransferEncoding: .notImplemented
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .connectionLimit, .shuttingDown: .serviceUnavailable
        }
    }
}

/// The one-time channel back to the client of a request.
public final class Responder: Sendable {
    private let context: RequestContext
    private let core: ServerCore

    init(context: RequestContext, core: ServerCore) {
        self.context = context
        self.core = core
    }

    /// Sends the response; only the first call has an effect.
    public func send(_ response: Response) {
        core.deliver(response, to: context)
    }

    /// When the server began reading the request.
    public var receivedAt: ContinuousClock.Instant { context.receivedAt }
}
