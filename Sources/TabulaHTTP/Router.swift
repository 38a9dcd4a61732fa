public import HTTPTypes

/// Matches a method and decoded path segments against route patterns such as
/// `/v1/screens/{id}/selection`. Knows nothing of what the handlers do.
public struct Router<Handler: Sendable>: Sendable {
    enum PatternSegment: Equatable, Sendable {
        case literal(String)
        case parameter(String)
    }

    struct Route: Sendable {
        let method: HTTPRequest.Method
        let pattern: String
        let segments: [PatternSegment]
        let handler: Handler
    }

    private var routes: [Route] = []

    public init() {}

    /// Adds a route; `{name}` segments match any one segment and are passed as parameters.
    public mutating func add(_ method: HTTPRequest.Method, _ pattern: String, _ handler: Handler) {
        let segments: [PatternSegment] = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        routes.append(Route(method: method, pattern: pattern, segments: segments, handler: handler))
    }

    /// Every route as (method, pattern), in the order added.
    public var patterns: [(method: HTTPRequest.Method, pattern: String)] {
        routes.map { ($0.method, $0.pattern) }
    }

    /// Finds the route for a request. HEAD is served by the GET route when there is no
    /// HEAD route. A path that exists with other methods gives `.methodNotAllowed` with
    /// the methods it has (for the `Allow` header).
    public func match(_ method: HTTPRequest.Method, _ segments: [String]) -> RouteMatch<Handler> {
        var allowed: [HTTPRequest.Method] = []
        var matchedPattern: String?
        var fallback: (Handler, [String: String], String)?
        for route in routes {
            guard let parameters = Self.parameters(route.segments, segments) else { continue }
            matchedPattern = matchedPattern ?? route.pattern
            if route.method == method { return .matched(route.handler, parameters: parameters, pattern: route.pattern) }
            if method == .head && route.method == .get { fallback = (route.handler, parameters, route.pattern) }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if let (handler, parameters, pattern) = fallback {
            return .matched(handler, parameters: parameters, pattern: pattern)
        }
        guard let matchedPattern else { return .notFound }
        if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
        return .methodNotAllowed(allowed: allowed, pattern: matchedPattern)
    }

    private static func parameters(_ pattern: [PatternSegment], _ segments: [String]) -> [String: String]? {
        guard pattern.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (patternSegment, segment) in zip(pattern, segments) {
            switch patternSegment {
            case .literal(let literal): guard literal == segment else { return nil }
            case .parameter(let name): parameters[name] = segment
            }
        }
        return parameters
    }
}

/// The outcome of ``Router/match(_:_:)``.
public enum RouteMatch<Handler: Sendable>: Sendable {
    case matched(Handler, parameters: [String: String], pattern: String)
    case methodNotAllowed(allowed: [HTTPRequest.Method], pattern: String)
    case notFound
}
