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

    public init(_ description: String) {
        self.description = description
    }
}
