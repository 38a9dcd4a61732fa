/// A request for ``HTTPClient``: where, with which method, header fields and body, and how
/// long the whole exchange may take.
public struct HTTPClientRequest: Sendable {
    /// An `http` or `https` URL; other schemes fail with ``HTTPClientError/transport(_:)``.
    public var url: String
    /// Sent as given, in order. Without a `Content-Type` the request carries none (curl
    /// would otherwise label it a form). A field's name and value may not hold a line break.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// From the start of the transfer (waiting for a free connection included) to the
    /// answer's last byte; past it the request fails with ``HTTPClientError/timedOut``.
    public var timeout: Duration

    /// A PEM file of the certificate authorities an `https` server's certificate must come
    /// from, instead of the system's (`nil`): for a server whose certificate a private CA
    /// signed. curl reads it when it opens a connection.
    public var certificateAuthorities: String?

    /// Whether ``timeout`` is the longest the transfer may stay silent, rather than its whole
    /// length: for an answer that may be large on a slow link (a screen for `tabula watch`).
    /// A streamed answer's always is.
    public var timeoutIsSilence = false

    /// The largest answer body kept, in bytes: a larger answer fails with
    /// ``HTTPClientError/answerTooLarge(limit:)``, its transfer ended once past it.
    public var answerLimit = HTTPClientRequest.defaultAnswerLimit
    /// What ``answerLimit`` is unless set: a mebibyte.
    public static let defaultAnswerLimit = 1 << 20

    /// The method: `POST` (the default) sends ``body``; `GET` sends none; another method
    /// (`PUT`) sends ``body`` with that method.
    public var method = "POST"
    /// Streams the answer: each part of its body, with its head, as it arrives, instead of
    /// the body whole in the response (which is then empty). Returning `false` ends the
    /// transfer. A streamed transfer has no overall timeout: ``timeout`` is the longest it may
    /// stay silent.
    public var receive: (@Sendable (_ head: HTTPClientHead, _ bytes: [UInt8]) -> Bool)?

    public init(url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], timeout: Duration = .seconds(10)) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A streamed answer's head: its status and the fields a client reads.
public struct HTTPClientHead: Sendable, Equatable {
    public var status: Int
    /// The `Content-Type` header's value, as sent.
    public var contentType: String?
    /// The seconds `Retry-After` asks to wait (a `429` or `503`), or `nil` when it has none.
    public var retryAfterSeconds: Int?

    public init(status: Int, contentType: String? = nil, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.contentType = contentType
        self.retryAfterSeconds = retryAfterSeconds
    }
}

/// What the server answered, whatever the status.
public struct HTTPClientResponse: Sendable, Equatable {
    public var status: Int
    /// The `Content-Type` header's value, as sent.
    public var contentType: String?
    /// The seconds `Retry-After` asks to wait (a `429` or `503`), or `nil` when it has none.
    public var retryAfterSeconds: Int?
    public var body: [UInt8]

    /// The answer's head, as a streamed answer gives it.
    public var head: HTTPClientHead { HTTPClientHead(status: status, contentType: contentType, retryAfterSeconds: retryAfterSeconds) }

    public init(status: Int, contentType: String? = nil, retryAfterSeconds: Int? = nil, body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.retryAfterSeconds = retryAfterSeconds
        self.body = body
    }
}
