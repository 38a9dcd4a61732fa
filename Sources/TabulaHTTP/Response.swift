public import HTTPTypes

/// An HTTP response: built per request, or a ``PreparedResponse`` built once and sent
/// many times without copying.
public struct Response: Sendable {
    enum Storage: Sendable {
        case dynamic(status: HTTPResponse.Status, headerFields: HTTPFields, body: [UInt8])
        case prepared(PreparedResponse)
        case stream(status: HTTPResponse.Status, headerFields: HTTPFields, ServerStream)
    }

    private(set) var storage: Storage
    /// Close the connection after this response.
    public var closesConnection = false
    /// The route pattern that produced it, for metrics and logs ("-" when none matched).
    public var route = "-"
    /// Context for the request's log line, for the observer to show as it sees fit (Tabula
    /// puts the first 8 characters of the session token here, what its log shows: never
    /// the whole token).
    public var logContext: String?
    /// Why the request was refused (a problem type's slug), for the rejected-requests metric;
    /// `nil` for answers that are not refusals.
    public var rejection: String?

    public init(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: [UInt8] = []) {
        storage = .dynamic(status: status, headerFields: headerFields, body: body)
    }

    public init(_ prepared: PreparedResponse) {
        storage = .prepared(prepared)
    }

    /// A response whose body `stream` produces until it ends (see ``ServerStream``).
    public init(status: HTTPResponse.Status, headerFields: HTTPFields, stream: ServerStream) {
        storage = .stream(status: status, headerFields: headerFields, stream)
    }

    public var status: HTTPResponse.Status {
        switch storage {
        case .dynamic(let status, _, _), .stream(let status, _, _): status
        case .prepared(let prepared): prepared.status
        }
    }

    public var headerFields: HTTPFields {
        switch storage {
        case .dynamic(_, let fields, _), .stream(_, let fields, _): fields
        case .prepared(let prepared): prepared.headerFields
        }
    }

    /// Adds header fields. A prepared response becomes a copy for this request only, so
    /// use it for the few answers that need per-request headers (CORS).
    public mutating func appendHeaderFields(_ extra: HTTPFields) {
        guard !extra.isEmpty else { return }
        var fields = headerFields
        // A field the answer already has, as it is (a `Vary: Origin` of its own), is not
        // written twice.
        for field in extra where !fields.contains(field) { fields.append(field) }
        if case .stream(_, _, let stream) = storage {
            storage = .stream(status: status, headerFields: fields, stream)
        } else {
            storage = .dynamic(status: status, headerFields: fields, body: body)
        }
    }

    /// The body; empty for a stream.
    public var body: [UInt8] {
        switch storage {
        case .dynamic(_, _, let body): body
        case .prepared(let prepared): prepared.body
        case .stream: []
        }
    }

    /// The stream of a streamed response.
    public var stream: ServerStream? {
        if case .stream(_, _, let stream) = storage { return stream }
        return nil
    }
}
