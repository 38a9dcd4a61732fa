import HTTPTypes

/// Why the server refused a request before any handler saw it.
public enum RejectionReason: String, CaseIterable, Sendable {
    /// A body over the limit, announced by Content-Length or counted while chunked.
    case bodyTooLarge = "body_too_large"
    /// More than one Content-Length header (request smuggling).
    case duplicateContentLength = "duplicate_content_length"
    /// Content-Length together with Transfer-Encoding (request smuggling).
    case contentLengthWithTransferEncoding = "content_length_with_transfer_encoding"
    /// A header whose name is not an HTTP token, such as `Content-Length :` with a space
    /// before the colon, which libmicrohttpd would take for an unknown header (smuggling); a
    /// header folded over two lines; or a value holding a control character, such as a bare
    /// CR, other than a tab.
    case malformedHeader = "malformed_header"
    /// A request target that is not valid UTF-8 (before percent-decoding), or that a raw
    /// NUL byte cuts short.
    case malformedPath = "malformed_path"
    /// More than one Host header.
    case duplicateHost = "duplicate_host"
    /// A Transfer-Encoding other than chunked.
    case unsupportedTransferEncoding = "unsupported_transfer_encoding"
    /// Headers that do not fit the connection's memory (431), seen in libmicrohttpd's log.
    case headersTooLarge = "headers_too_large"
    /// A request target too long for the connection's memory (414), seen in libmicrohttpd's log.
    case uriTooLong = "uri_too_long"
    /// An HTTP version libmicrohttpd does not speak, such as HTTP/2.0 (505), seen in its log.
    case httpVersionNotSupported = "http_version_not_supported"
    /// A request libmicrohttpd found malformed (for example HTTP/1.1 without Host), or an
    /// HTTP/1.0 request with Transfer-Encoding, whose framing RFC 9112 calls faulty.
    case malformedRequest = "malformed_request"
    /// A connection over the total or per-address limit, closed at once.
    case connectionLimit = "connection_limit"
    /// A request that arrived while the server was shutting down.
    case shuttingDown = "shutting_down"
    /// A request head (line and headers) not complete within the header timeout: the
    /// connection is closed without an answer, however slowly the head trickles in.
    case headerTimeout = "header_timeout"
}

/// What the server reports about each finished request.
public struct RequestSummary: Sendable {
    public var method: String
    public var path: String
    public var status: Int
    public var route: String
    /// From the request's first byte to its completion, in whole nanoseconds (what metrics
    /// and logs use: taking them out of a `Duration` is a 128-bit division).
    public var durationNanoseconds: Int64
    public var remoteAddress: String
    /// The response's ``Response/logContext``.
    public var logContext: String?
    /// The response's ``Response/rejection``.
    public var rejection: String?

    public init(
        method: String, path: String, status: Int, route: String, duration: Duration, remoteAddress: String,
        logContext: String? = nil, rejection: String? = nil
    ) {
        self.init(
            method: method, path: path, status: status, route: route, durationNanoseconds: Self.nanoseconds(duration),
            remoteAddress: remoteAddress, logContext: logContext, rejection: rejection)
    }

    public init(
        method: String, path: String, status: Int, route: String, durationNanoseconds: Int64, remoteAddress: String,
        logContext: String? = nil, rejection: String? = nil
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.route = route
        self.durationNanoseconds = durationNanoseconds
        self.remoteAddress = remoteAddress
        self.logContext = logContext
        self.rejection = rejection
    }

    /// From the request's first byte to its completion.
    public var duration: Duration {
        get { .nanoseconds(durationNanoseconds) }
        set { durationNanoseconds = Self.nanoseconds(newValue) }
    }

    /// A duration in whole nanoseconds, at least zero.
    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
    }
}

/// Receives what happens inside the server, for logs and metrics.
public protocol HTTPServerObserver: Sendable {
    /// A request was answered; called once per request the server answered itself or passed on.
    /// Borrowed: an observer that keeps the summary copies it. Handed over `consuming` through
    /// the existential, the summary was copied once more at every call (this runs for every
    /// request).
    func requestCompleted(_ summary: borrowing RequestSummary)
    /// A request or connection was refused before reaching a handler.
    func requestRejected(_ reason: RejectionReason)
}

/// An observer that records nothing: for servers that keep no request log or metrics (the
/// example backend, benchmarks' baselines, tests' backends).
public struct SilentObserver: HTTPServerObserver {
    public init() {}
    public func requestCompleted(_ summary: borrowing RequestSummary) {}
    public func requestRejected(_ reason: RejectionReason) {}
}
