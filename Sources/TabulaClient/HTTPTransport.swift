/// How a session reaches the service: requests whose answers come whole, and streams whose
/// bodies come as they are sent. `URLSessionTransport` (in `TabulaClientURLSession`) is the
/// one apps use; any HTTP client that streams can be another.
public protocol HTTPTransport: Sendable {
    /// Sends a request and waits for its whole answer, whatever its status. Throws when no
    /// answer came: the connection failed, was cut, or stayed silent past `idleTimeout`.
    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPAnswer
    /// Opens a stream: its status and headers once they arrive (the answer's `body` empty),
    /// then its body as it comes; `cancel` ends it.
    func openStream(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPStream
    /// Ends every request and stream in flight; the transport is not used again.
    func close()
}

/// A request: a method, a whole URL, headers and a body.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// How long the connection may stay silent before the request is given up.
    public var idleTimeout: Duration

    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, idleTimeout: Duration) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.idleTimeout = idleTimeout
    }
}

/// An answer: its status, its headers (names lowercased) and its body.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// How long the answer's `Retry-After` asks to wait (a `429` or `503`): its seconds, or
    /// `nil` when it has none or gives a date (the service sends seconds).
    var retryAfter: Duration? {
        guard let field = headers["retry-after"] else { return nil }
        let bytes = Array(field.utf8)
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return nil }
        let digits = bytes[first...last]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        // Past a billion seconds every wait is as long as the client's maximum anyway.
        let limit = 1_000_000_000
        return .seconds(digits.reduce(0) { min($0 * 10 + Int($1 - UInt8(ascii: "0")), limit) })
    }
}

/// A stream's answer: its head, then its body as it comes.
public struct HTTPStream: Sendable {
    public var head: HTTPAnswer
    public var body: AsyncThrowingStream<[UInt8], any Error>
    public var cancel: @Sendable () -> Void

    public init(head: HTTPAnswer, body: AsyncThrowingStream<[UInt8], any Error>, cancel: @escaping @Sendable () -> Void) {
        self.head = head
        self.body = body
        self.cancel = cancel
    }
}

/// The request never got an answer: the connection was refused, cut or went silent. An
/// event that failed so may or may not have reached the service, which is why it is retried
/// with its `eventId`.
public struct TransportFailure: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// Whether the transport was closed (``HTTPTransport/close()``): nothing sent on it is
    /// answered again, and a screen handle on it ends with ``EndReason/closed``.
    public var isClosed: Bool

    public init(_ description: String, isClosed: Bool = false) {
        self.description = description
        self.isClosed = isClosed
    }

    /// What a closed transport throws, for every request and stream, waiting or new.
    public static let closed = TransportFailure("the transport was closed", isClosed: true)
}
