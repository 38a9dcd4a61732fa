public import HTTPTypes

/// Answers requests. `handle` runs on a server thread; it may send the response before it
/// returns (the fast path) or later from any thread, for example once a database commit
/// is done: the server parks the connection meanwhile and serves others.
public protocol HTTPHandler: Sendable {
    func handle(_ request: Request, responder: Responder)

    /// The answer for a request the server refuses before `handle` could see it (the
    /// status follows from the reason; the server closes the connection after it).
    /// `configuration` is the server's, whose limits the answer can name.
    func refusal(_ reason: RejectionReason, under configuration: ServerConfiguration) -> Response

    /// Whether the server should offer unparsed GETs to ``quickAnswer(_:)`` (a header pass per
    /// GET that handlers answering none of them need not pay).
    var answersUnparsedGets: Bool { get }

    /// The answer to a unparsed GET when the handler has it prepared, or `nil` to have the
    /// request go through ``handle(_:responder:)``. It must be exactly what `handle` would
    /// send for the same request; it runs on the connection's thread and must not block.
    func quickAnswer(_ request: UnparsedGet) -> QuickAnswer?
}

extension HTTPHandler {
    public var answersUnparsedGets: Bool { false }

    public func quickAnswer(_ request: UnparsedGet) -> QuickAnswer? { nil }
}

extension RejectionReason {
    /// The status a refusal is answered with.
    public var status: HTTPResponse.Status {
        switch self {
        case .bodyTooLarge: .contentTooLarge
        case .duplicateContentLength, .contentLengthWithTransferEncoding, .malformedRequest, .malformedHeader, .duplicateHost, .malformedPath: .badRequest
        case .unsupportedTransferEncoding: .notImplemented
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .uriTooLong: .uriTooLong
        case .httpVersionNotSupported: .httpVersionNotSupported
        case .connectionLimit, .shuttingDown: .serviceUnavailable
        case .headerTimeout: .requestTimeout
        }
    }
}

/// The one-time channel back to the client of a request. A value (no allocation per
/// request): copies send to the same request, and only the first send counts.
public struct Responder: Sendable {
    private enum Target: Sendable {
        case connection(RequestContext, ServerCore)
        case closure(@Sendable (Response) -> Void)
    }

    private let target: Target
    /// Header fields added to every response sent through this responder.
    private var addedHeaderFields: HTTPFields?

    init(context: RequestContext, core: ServerCore) {
        target = .connection(context, core)
    }

    /// A responder that hands the response to `deliver` (to test or measure a handler
    /// without a server).
    public init(deliver: @escaping @Sendable (Response) -> Void) {
        target = .closure(deliver)
    }

    /// This responder, adding `fields` to whatever it sends.
    public func adding(_ fields: HTTPFields) -> Responder {
        var copy = self
        copy.addedHeaderFields = (addedHeaderFields ?? [:]) + fields
        return copy
    }

    /// Whether this responder adds header fields to what it sends (see ``adding(_:)``).
    public var addsHeaderFields: Bool { addedHeaderFields != nil }

    /// Sends the response; for a connection, only the first call has an effect.
    public func send(_ response: Response) {
        var response = response
        if let addedHeaderFields { response.appendHeaderFields(addedHeaderFields) }
        switch target {
        case .connection(let context, let core): core.deliver(response, to: context)
        case .closure(let deliver): deliver(response)
        }
    }
}
