import HTTPTypes
import TabulaHTTP

/// Cross-origin access for browsers, off unless origins are configured. An allowed origin
/// gets `Access-Control-Allow-Origin` on every answer and a 204 to its preflight; any other
/// origin gets no CORS headers (the browser then withholds the answer) and a 403 preflight.
public struct CORSPolicy: Sendable {
    /// Exact origins (`https://app.example.com`, lower-cased), or every origin with `*`.
    let origins: Set<String>
    let allowsAnyOrigin: Bool

    static let allowedMethods = "GET, POST, PUT"
    /// `Last-Event-ID` for a stream client built on `fetch`, which resumes with the header
    /// (an `EventSource` sends it without asking).
    static let allowedHeaders = "Authorization, Content-Type, If-None-Match, Last-Event-ID, X-Session"
    static let exposedHeaders = "ETag, Location, Retry-After"
    static let preflightMaxAgeSeconds = 600

    /// Parses an allow-list entry: `*` or `scheme://host[:port]` with scheme http or https
    /// and nothing after the authority. The error says what is wrong with the entry.
    public init(origins entries: [String]) throws(ConfigurationError) {
        var origins = Set<String>()
        var any = false
        for entry in entries.map({ $0.trimmingSpaces() }) where !entry.isEmpty {
            if entry == "*" { any = true; continue }
            let lowered = entry.lowercased()
            guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }) else {
                throw ConfigurationError("CORS origin \"\(entry)\" must start with http:// or https:// (or be *)")
            }
            let authority = lowered.dropFirst(scheme.count)
            guard !authority.isEmpty, !authority.contains(where: { "/?#@ ".contains($0) }) else {
                throw ConfigurationError("CORS origin \"\(entry)\" must be scheme://host[:port], without a path")
            }
            origins.insert(lowered)
        }
        guard any || !origins.isEmpty else {
            throw ConfigurationError("the CORS allow-list is empty; name origins like https://app.example.com")
        }
        self.origins = origins
        allowsAnyOrigin = any
    }

    func allows(_ origin: String) -> Bool {
        allowsAnyOrigin || origins.contains(origin.lowercased())
    }

    /// Headers for an answer to an allowed origin.
    func responseHeaders(origin: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[.accessControlAllowOrigin] = allowsAnyOrigin ? "*" : origin
        fields[.accessControlExposeHeaders] = Self.exposedHeaders
        fields[.vary] = "Origin"
        return fields
    }

    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`).
    func preflight(origin: String) -> Response {
        guard allows(origin) else { return Problem.corsOriginNotAllowed(origin).response() }
        var fields = responseHeaders(origin: origin)
        fields[.accessControlAllowMethods] = Self.allowedMethods
        fields[.accessControlAllowHeaders] = Self.allowedHeaders
        fields[.accessControlMaxAge] = String(Self.preflightMaxAgeSeconds)
        return Response(status: .noContent, headerFields: fields)
    }
}

/// A setting that cannot work, with what to change.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
