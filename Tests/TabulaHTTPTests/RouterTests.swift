import HTTPTypes
import TabulaHTTP
import Testing

/// The router on its own: literal and parameter segments, methods, HEAD, escapes, and the
/// two ways it matches a path (a plain path on its bytes, any other after decoding its
/// segments), which must always agree.
@Suite struct RouterTests {
    static let router: Router = {
        var router = Router()
        router.add(.get, "/v1/screens")
        router.add(.post, "/v1/sessions")
        router.add(.get, "/v1/screens/{id}")
        router.add(.get, "/v1/screens/{id}/changes")
        router.add(.post, "/v1/screens/{id}/selection")
        router.add(.get, "/v1/things/{a}/{b}")
        router.add(.delete, "/v1/things/{a}/{b}")
        router.add(.get, "/healthz")
        return router
    }()

    /// A match as text, to compare matches and to expect them readably.
    static func describe(_ match: RouteMatch, _ names: [String] = ["id", "a", "b"]) -> String {
        switch match {
        case .matched(let index, let parameters, let pattern):
            let values = names.compactMap { name in parameters[name].map { "\(name)=\($0)" } }
            return "matched \(index) \(pattern)" + (values.isEmpty ? "" : " " + values.joined(separator: " "))
        case .methodNotAllowed(let allowed, let pattern): return "405 \(pattern) allow \(allowed.map(\.rawValue).joined(separator: ","))"
        case .notFound: return "404"
        case .malformedPath: return "malformed"
        }
    }

    @Test(arguments: [
        ("GET", "/v1/screens", "matched 0 /v1/screens"),
        ("POST", "/v1/sessions", "matched 1 /v1/sessions"),
        ("GET", "/v1/screens/settings", "matched 2 /v1/screens/{id} id=settings"),
        ("GET", "/v1/screens/settings/changes", "matched 3 /v1/screens/{id}/changes id=settings"),
        ("POST", "/v1/screens/a%2Fb/selection", "matched 4 /v1/screens/{id}/selection id=a/b"),
        ("GET", "/v1/screens/caf%C3%A9", "matched 2 /v1/screens/{id} id=café"),
        ("GET", "/v1/screens/café", "matched 2 /v1/screens/{id} id=café"),
        ("GET", "/v1/things/1/2", "matched 5 /v1/things/{a}/{b} a=1 b=2"),
        ("DELETE", "/v1/things/1/2", "matched 6 /v1/things/{a}/{b} a=1 b=2"),
        ("HEAD", "/healthz", "matched 7 /healthz"),
        ("POST", "/v1/screens/settings", "405 /v1/screens/{id} allow GET,HEAD"),
        ("PUT", "/v1/things/1/2", "405 /v1/things/{a}/{b} allow GET,DELETE,HEAD"),
        ("GET", "/v1/sessions", "405 /v1/sessions allow POST"),
        ("GET", "/v1/screens/settings/nope", "404"),
        ("GET", "/v1/screens/", "matched 2 /v1/screens/{id} id="),
        ("GET", "/v2/screens", "404"),
        ("GET", "/", "404"),
        ("GET", "v1/screens", "malformed"),
        ("GET", "", "malformed"),
        ("GET", "/v1/screens/%zz", "malformed"),
        ("GET", "/v1/screens/%FF", "malformed"),
    ])
    func matches(method: String, path: String, expected: String) throws {
        let method = try #require(HTTPRequest.Method(method))
        #expect(Self.describe(Self.router.match(method, path: path)) == expected)
    }

    /// A plain ASCII path gives the same match as its decoded segments, for random paths
    /// made of the routes' own segments and others.
    @Test func bothMatchersAgree() throws {
        let pieces = ["v1", "screens", "sessions", "settings", "changes", "selection", "things", "1", "2", "healthz", "x", ""]
        let methods: [HTTPRequest.Method] = [.get, .post, .head, .delete, .put]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let segments = (0..<Int.random(in: 0...5, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }
            let path = "/" + segments.joined(separator: "/")
            let method = methods.randomElement(using: &random) ?? .get
            let viaBytes = Self.describe(Self.router.match(method, path: path))
            let viaSegments = Self.describe(
                Self.router.match(method, path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)))
            #expect(viaBytes == viaSegments, "\(method) \(path)")
            // The same path with an escape in it goes the decoding way, and agrees too.
            let escaped = path.replacingOccurrences(of: "s", with: "%73")
            #expect(Self.describe(Self.router.match(method, path: escaped)) == viaBytes, "\(method) \(escaped)")
        }
    }

    @Test func patternsAreListedInTheOrderAdded() {
        #expect(Self.router.patterns.map(\.pattern).prefix(3) == ["/v1/screens", "/v1/sessions", "/v1/screens/{id}"])
        #expect(Self.router.patterns[1].method == .post)
    }
}
