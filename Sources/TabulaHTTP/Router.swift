public import HTTPTypes

/// Matches a method and decoded path segments against route patterns such as
/// `/v1/screens/{id}/selection`, giving the index of the route in the order they were
/// added: callers keep their handlers in an array. (Not generic over the handler, so that
/// it runs specialized, without runtime generic lookups, when called from another module.)
public struct Router: Sendable {
    enum PatternSegment: Equatable, Sendable {
        case literal(String)
        case parameter(String)
    }

    // Parallel arrays, so that matching reads only what it compares (no struct copies).
    private var methods: [HTTPRequest.Method] = []
    private var patternTexts: [String] = []
    private var segmentLists: [[PatternSegment]] = []
    /// Route indexes by number of path segments.
    private var bySegmentCount: [Int: [Int]] = [:]

    public init() {}

    /// Adds a route; `{name}` segments match any one segment and are passed as parameters.
    /// Adds a route and returns its index.
    @discardableResult
    public mutating func add(_ method: HTTPRequest.Method, _ pattern: String) -> Int {
        let segments: [PatternSegment] = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        bySegmentCount[segments.count, default: []].append(methods.count)
        methods.append(method)
        patternTexts.append(pattern)
        segmentLists.append(segments)
        return methods.count - 1
    }

    /// Every route as (method, pattern), in the order added.
    public var patterns: [(method: HTTPRequest.Method, pattern: String)] {
        Array(zip(methods, patternTexts))
    }

    /// Finds the route for a request. HEAD is served by the GET route when there is no
    /// HEAD route. A path that exists with other methods gives `.methodNotAllowed` with
    /// the methods it has (for the `Allow` header).
    public func match(_ method: HTTPRequest.Method, _ segments: [String]) -> RouteMatch {
        guard let candidates = bySegmentCount[segments.count] else { return .notFound }
        for index in candidates where methods[index] == method && Self.matches(segmentLists[index], segments) {
            return .matched(index, parameters: Self.parameters(segmentLists[index], segments), pattern: patternTexts[index])
        }
        let pathRoutes = candidates.filter { Self.matches(segmentLists[$0], segments) }
        guard let first = pathRoutes.first else { return .notFound }
        if method == .head, let get = pathRoutes.first(where: { methods[$0] == .get }) {
            return .matched(get, parameters: Self.parameters(segmentLists[get], segments), pattern: patternTexts[get])
        }
        var allowed: [HTTPRequest.Method] = []
        for index in pathRoutes where !allowed.contains(methods[index]) { allowed.append(methods[index]) }
        if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
        return .methodNotAllowed(allowed: allowed, pattern: patternTexts[first])
    }

    /// Whether a pattern matches, without building anything.
    private static func matches(_ pattern: [PatternSegment], _ segments: [String]) -> Bool {
        for index in pattern.indices {
            if case .literal(let literal) = pattern[index], literal != segments[index] { return false }
        }
        return true
    }

    /// The parameters of a matching pattern.
    private static func parameters(_ pattern: [PatternSegment], _ segments: [String]) -> [String: String] {
        var parameters: [String: String] = [:]
        for index in pattern.indices {
            if case .parameter(let name) = pattern[index] { parameters[name] = segments[index] }
        }
        return parameters
    }
}

/// The outcome of ``Router/match(_:_:)``.
public enum RouteMatch: Sendable {
    /// The route at this index (in the order added) matched.
    case matched(Int, parameters: [String: String], pattern: String)
    case methodNotAllowed(allowed: [HTTPRequest.Method], pattern: String)
    case notFound
}
