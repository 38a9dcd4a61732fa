internal import CMicroHTTPD

/// A GET as libmicrohttpd holds it, offered to ``HTTPHandler/quickAnswer(_:)`` before the
/// server parses it into a ``Request``. Offered only when simple enough to answer that way:
/// no query, no body announced, nothing the framing rules refuse (``FramingCheck``), at
/// most ``maxHeaders`` headers, a target with no NUL in it.
/// Its bytes are libmicrohttpd's: valid only during that call.
public struct UnparsedGet {
    /// At most this many headers; a request with more is not offered.
    public static let maxHeaders = 24

    /// The request target as sent (a path: a unparsed GET has no query).
    public let path: UnsafeRawBufferPointer
    private let headers: UnsafeBufferPointer<UnparsedHeader>

    init(path: UnsafeRawBufferPointer, headers: UnsafeBufferPointer<UnparsedHeader>) {
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

    /// Calls `body` with each header's name and value as sent, in order.
    public func forEachHeader(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        for header in headers { body(header.name, header.value) }
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

/// A handler's answer to a ``UnparsedGet``: a prepared response, and what the access log and
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

/// One header of a unparsed GET, pointing into libmicrohttpd's memory.
struct UnparsedHeader {
    var name: UnsafeRawBufferPointer
    var value: UnsafeRawBufferPointer
}

/// Collects a request's headers into a caller's buffer and decides whether the GET qualifies
/// to be offered unparsed: the framing rules (``FramingCheck``) find nothing, and no body is
/// announced.
struct UnparsedGetScan {
    let buffer: UnsafeMutableBufferPointer<UnparsedHeader>
    var count = 0
    var framing = FramingCheck()
    var qualifies = true

    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let scan = cls.assumingMemoryBound(to: UnparsedGetScan.self)
        let name = UnsafeRawBufferPointer(start: key, count: keySize)
        let bytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
        _ = scan.pointee.framing.see(name, value: bytes)
        guard scan.pointee.count < scan.pointee.buffer.count, scan.pointee.framing.problem == nil, !scan.pointee.framing.announcesBody
        else {
            scan.pointee.qualifies = false
            return .NO
        }
        scan.pointee.buffer[scan.pointee.count] = UnparsedHeader(name: name, value: bytes)
        scan.pointee.count += 1
        return .YES
    }
}
