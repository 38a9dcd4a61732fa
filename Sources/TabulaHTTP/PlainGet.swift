internal import CMicroHTTPD

/// A GET the server offers to ``HTTPHandler/quickAnswer(_:)`` before it builds a
/// ``Request``: no query, no body framing headers (Content-Length, Transfer-Encoding), at
/// most one Host, every header name a token, at most ``maxHeaders`` headers, a target with
/// no NUL in it. Its bytes are libmicrohttpd's: valid only during that call.
public struct PlainGet {
    /// At most this many headers; a request with more is not offered.
    public static let maxHeaders = 24

    /// The request target as sent (a path: a plain GET has no query).
    public let path: UnsafeRawBufferPointer
    private let headers: UnsafeBufferPointer<PlainHeader>

    init(path: UnsafeRawBufferPointer, headers: UnsafeBufferPointer<PlainHeader>) {
        self.path = path
        self.headers = headers
    }

    /// A header's value when it was sent once; `name`, in lowercase, matches in any case.
    public func header(_ name: StaticString) -> Lookup {
        var found: UnsafeRawBufferPointer?
        var seen = 0
        for header in headers where ASCII.equalIgnoringCase(header.name, name) {
            seen += 1
            found = header.value
        }
        switch seen {
        case 0: return .absent
        case 1: return found.map { .one($0) } ?? .absent
        default: return .repeated
        }
    }

    /// See ``header(_:)``.
    public enum Lookup {
        case absent
        case one(UnsafeRawBufferPointer)
        case repeated

        public var isAbsent: Bool {
            if case .absent = self { true } else { false }
        }
    }
}

/// A handler's answer to a ``PlainGet``: a prepared response, and what the access log and
/// metrics say of it (the same as a ``Response`` sent through a ``Responder`` would).
public struct QuickAnswer: Sendable {
    /// Unretained: `owner` keeps it alive while the answer is sent.
    let unretainedResponse: Unmanaged<PreparedResponse>
    let owner: any AnyObject & Sendable
    /// The route pattern, for metrics and logs.
    public let route: String
    /// See ``Response/logContext``.
    public let logContext: String?

    public init(response: PreparedResponse, route: String, logContext: String?) {
        self.init(response: response, keptAliveBy: response, route: route, logContext: logContext)
    }

    /// An answer that keeps `owner` alive instead of the response, for a response many
    /// threads share held by an object of the calling thread's own: retaining the shared
    /// response on every request would write its reference count's cache line from every
    /// thread. `owner` must hold `response` in a constant (`let`) property.
    public init(response: borrowing PreparedResponse, keptAliveBy owner: any AnyObject & Sendable, route: String, logContext: String?) {
        unretainedResponse = Unmanaged.passUnretained(copy response)
        self.owner = owner
        self.route = route
        self.logContext = logContext
    }

    /// The prepared response sent.
    public var response: PreparedResponse { unretainedResponse.takeUnretainedValue() }
}

/// One header of a plain GET, pointing into libmicrohttpd's memory.
struct PlainHeader {
    var name: UnsafeRawBufferPointer
    var value: UnsafeRawBufferPointer
}

/// Collects a request's headers into a caller's buffer and decides whether it is plain.
struct PlainGetScan {
    let buffer: UnsafeMutableBufferPointer<PlainHeader>
    var count = 0
    var hostCount = 0
    var isPlain = true

    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let scan = cls.assumingMemoryBound(to: PlainGetScan.self)
        let name = UnsafeRawBufferPointer(start: key, count: keySize)
        guard scan.pointee.count < scan.pointee.buffer.count, !name.isEmpty, name.allSatisfy(ASCII.isTokenCharacter) else {
            scan.pointee.isPlain = false
            return .NO
        }
        if ASCII.equalIgnoringCase(name, HeaderScan.host) {
            scan.pointee.hostCount += 1
            if scan.pointee.hostCount > 1 { scan.pointee.isPlain = false }
        } else if ASCII.equalIgnoringCase(name, HeaderScan.contentLength) || ASCII.equalIgnoringCase(name, HeaderScan.transferEncoding) {
            scan.pointee.isPlain = false
        }
        guard scan.pointee.isPlain else { return .NO }
        scan.pointee.buffer[scan.pointee.count] = PlainHeader(
            name: name, value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
        scan.pointee.count += 1
        return .YES
    }
}
