import HTTPTypes
import TabulaHTTP

/// What the service requires of a request before any route sees it: the API key on `/v1`
/// paths, and CORS for browsers. One rule set for the two ways a request comes in: routed,
/// or as a unparsed GET answered from memory before routing.
struct AccessPolicy: Sendable {
    let apiKey: APIKey?
    let cors: CORSPolicy?

    /// What to do with a routed request.
    enum Verdict {
        /// The service answers it itself: a CORS preflight, or 401 for a missing or wrong key.
        case answer(Response)
        /// The route answers it; every answer gets these header fields (CORS), if any.
        case pass(adding: HTTPFields?)
    }

    func check(_ request: Request) -> Verdict {
        var added: HTTPFields?
        if let cors, case .one(let origin) = request.headers.single("Origin") {
            if request.method == .options, request.headers.single("Access-Control-Request-Method") != .absent {
                return .answer(cors.preflight(origin: origin))
            }
            if cors.allows(origin) { added = cors.responseHeaders(origin: origin) }
        }
        if let apiKey, Self.requiresKey(request.rawPath) {
            var authorization: String?
            if case .one(let value) = request.headers.single("Authorization") { authorization = value }
            guard var value = authorization, value.withUTF8({ apiKey.authorizes(headerValue: UnsafeRawBufferPointer($0)) }) else {
                var response = Problem.unauthorized(presented: request.headers.single("Authorization") != .absent).response()
                if let added { response.appendHeaderFields(added) }
                return .answer(response)
            }
        }
        return .pass(adding: added)
    }

    /// Whether a unparsed GET of a `/v1` path passes with nothing added to its answer (no
    /// `Origin`, so no CORS fields; the key right when one is set), so that it may be
    /// answered from memory. Anything else goes the routed way, through ``check(_:)``.
    func passesUnchanged(_ request: UnparsedGet) -> Bool {
        guard request.header("origin").isAbsent else { return false }
        guard let apiKey else { return true }
        guard case .one(let value) = request.header("authorization") else { return false }
        return apiKey.authorizes(headerValue: value)
    }

    /// Whether a path needs the API key: every `/v1` route; `/healthz`, `/metrics` and
    /// `/openapi.json` stay open for probes and scrapers.
    static func requiresKey(_ rawPath: String) -> Bool {
        rawPath == "/v1" || rawPath.hasPrefix("/v1/")
    }
}
