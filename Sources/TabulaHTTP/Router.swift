public import HTTPTypes

/// Matches a method and a request path against route patterns such as
/// `/v1/screens/{id}/selection`, giving the index of the route in the order they were
/// added: callers keep their handlers in an array. (Not generic over the handler, so that
/// it runs specialized, without runtime generic lookups, when called from another module.)
///
/// Paths are matched segment by segment after percent-decoding each segment on its own, so
/// an encoded "/" stays inside its segment. A plain ASCII path without escapes (nearly every
/// request) is matched on its bytes, without building anything but the parameter values.
public struct Router: Sendable {
    /// A pattern segment: a parameter, or a literal stored in ``literals`` (plain values,
    /// so that matching copies no reference).
    struct PatternSegment: Equatable, Sendable {
        let isParameter: Bool
        let start: Int
        let count: Int
    }

    // Parallel arrays, so that matching reads only what it compares (no struct copies).
    private var methods: [HTTPRequest.Method] = []
    private var patternTexts: [String] = []
    private var segmentLists: [[PatternSegment]] = []
    private var parameterNames: [[String]] = []
    /// The bytes of every literal segment, back to back.
    private var literals: [UInt8] = []
    /// Route indexes by number of path segments.
    private var bySegmentCount: [[Int]] = []

    public init() {}

    /// Adds a route and returns its index; `{name}` segments match any one segment and are
    /// passed as parameters.
    @discardableResult
    public mutating func add(_ method: HTTPRequest.Method, _ pattern: String) -> Int {
        var segments: [PatternSegment] = []
        var names: [String] = []
        for part in pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if part.hasPrefix("{") && part.hasSuffix("}") {
                segments.append(PatternSegment(isParameter: true, start: 0, count: 0))
                names.append(String(part.dropFirst().dropLast()))
            } else {
                segments.append(PatternSegment(isParameter: false, start: literals.count, count: part.utf8.count))
                literals.append(contentsOf: part.utf8)
            }
        }
        while bySegmentCount.count <= segments.count { bySegmentCount.append([]) }
        bySegmentCount[segments.count].append(methods.count)
        methods.append(method)
        patternTexts.append(pattern)
        segmentLists.append(segments)
        parameterNames.append(names)
        return methods.count - 1
    }

    /// Every route as (method, pattern), in the order added.
    public var patterns: [(method: HTTPRequest.Method, pattern: String)] {
        Array(zip(methods, patternTexts))
    }

    /// Finds the route for a request path as sent (escapes in place). HEAD is served by the
    /// GET route when there is no HEAD route. A path that exists with other methods gives
    /// `.methodNotAllowed` with the methods it has (for the `Allow` header). A path that
    /// does not start with "/", has a malformed escape or is not UTF-8 gives `.malformedPath`.
    public func match(_ method: HTTPRequest.Method, path rawPath: String) -> RouteMatch {
        var path = rawPath
        let plain = path.withUTF8 { bytes -> RouteMatch? in
            guard bytes.first == UInt8(ascii: "/") else { return .malformedPath }
            var slashes = 0
            for byte in bytes {
                if byte == UInt8(ascii: "%") || byte >= 0x80 { return nil }
                if byte == UInt8(ascii: "/") { slashes += 1 }
            }
            return literals.withUnsafeBufferPointer { literals in
                match(method, RawSegments(bytes: bytes, count: slashes, literals: literals))
            }
        }
        if let plain { return plain }
        guard let segments = Request.pathSegments(of: rawPath) else { return .malformedPath }
        return match(method, segments)
    }

    /// Finds the route for decoded path segments.
    public func match(_ method: HTTPRequest.Method, _ segments: [String]) -> RouteMatch {
        literals.withUnsafeBufferPointer { literals in
            match(method, DecodedSegments(segments: segments, literals: literals))
        }
    }

    private func match<Segments: PathSegments>(_ method: HTTPRequest.Method, _ segments: Segments) -> RouteMatch {
        guard segments.count < bySegmentCount.count else { return .notFound }
        let candidates = bySegmentCount[segments.count]
        for index in candidates where methods[index] == method && segments.match(segmentLists[index]) {
            return matched(index, segments)
        }
        let pathRoutes = candidates.filter { segments.match(segmentLists[$0]) }
        guard let first = pathRoutes.first else { return .notFound }
        if method == .head, let get = pathRoutes.first(where: { methods[$0] == .get }) {
            return matched(get, segments)
        }
        var allowed: [HTTPRequest.Method] = []
        for index in pathRoutes where !allowed.contains(methods[index]) { allowed.append(methods[index]) }
        if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
        return .methodNotAllowed(allowed: allowed, pattern: patternTexts[first])
    }

    private func matched<Segments: PathSegments>(_ index: Int, _ segments: Segments) -> RouteMatch {
        let values = segments.parameterValues(segmentLists[index])
        return .matched(index, parameters: RouteParameters(names: parameterNames[index], values: values), pattern: patternTexts[index])
    }
}

/// The outcome of ``Router/match(_:path:)``.
public enum RouteMatch: Sendable {
    /// The route at this index (in the order added) matched.
    case matched(Int, parameters: RouteParameters, pattern: String)
    case methodNotAllowed(allowed: [HTTPRequest.Method], pattern: String)
    case notFound
    case malformedPath
}

/// The values of a route's `{name}` segments, decoded.
public struct RouteParameters: Sendable {
    private let names: [String]
    private let values: Values

    /// Most routes have at most one parameter: its value is kept without an array.
    enum Values: Sendable {
        case none
        case one(String)
        case many([String])
    }

    init(names: [String], values: Values) {
        self.names = names
        self.values = values
    }

    public subscript(name: String) -> String? {
        guard let position = names.firstIndex(of: name) else { return nil }
        switch values {
        case .none: return nil
        case .one(let value): return position == 0 ? value : nil
        case .many(let values): return position < values.count ? values[position] : nil
        }
    }
}

/// A path split into segments, compared with a route's pattern.
private protocol PathSegments {
    var count: Int { get }
    func match(_ pattern: [Router.PatternSegment]) -> Bool
    func parameterValues(_ pattern: [Router.PatternSegment]) -> RouteParameters.Values
}

extension RouteParameters.Values {
    /// Adds the next parameter's value.
    mutating func append(_ value: String) {
        switch self {
        case .none: self = .one(value)
        case .one(let first): self = .many([first, value])
        case .many(let all): self = .many(all + [value])
        }
    }
}

/// An ASCII path without escapes, segments read in place (the path starts with "/").
private struct RawSegments: PathSegments {
    let bytes: UnsafeBufferPointer<UInt8>
    let count: Int
    let literals: UnsafeBufferPointer<UInt8>

    /// Calls `body` with each segment's bounds, in order, until it returns false.
    private func forEachSegment(_ body: (Int, Range<Int>) -> Bool) {
        var start = 1
        var segment = 0
        for index in 1...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            guard body(segment, start..<index) else { return }
            segment += 1
            start = index + 1
        }
    }

    func match(_ pattern: [Router.PatternSegment]) -> Bool {
        var matches = true
        forEachSegment { segment, range in
            let literal = pattern[segment]
            guard !literal.isParameter else { return true }
            guard literal.count == range.count else {
                matches = false
                return false
            }
            var offset = 0
            while offset < literal.count && literals[literal.start + offset] == bytes[range.lowerBound + offset] { offset += 1 }
            matches = offset == literal.count
            return matches
        }
        return matches
    }

    func parameterValues(_ pattern: [Router.PatternSegment]) -> RouteParameters.Values {
        var values = RouteParameters.Values.none
        forEachSegment { segment, range in
            if pattern[segment].isParameter { values.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)) }
            return true
        }
        return values
    }
}

/// Segments already split and decoded.
private struct DecodedSegments: PathSegments {
    let segments: [String]
    let literals: UnsafeBufferPointer<UInt8>
    var count: Int { segments.count }

    func match(_ pattern: [Router.PatternSegment]) -> Bool {
        for index in pattern.indices where !pattern[index].isParameter {
            let literal = pattern[index]
            if !segments[index].utf8.elementsEqual(literals[literal.start..<literal.start + literal.count]) { return false }
        }
        return true
    }

    func parameterValues(_ pattern: [Router.PatternSegment]) -> RouteParameters.Values {
        var values = RouteParameters.Values.none
        for index in pattern.indices where pattern[index].isParameter { values.append(segments[index]) }
        return values
    }
}
