import HTTPTypes
import TabulaHTTP

/// What the service requires of a request: before any route sees it, the API key on `/v1`
/// paths and the preview page's API (the backend key passes too) and CORS for browsers;
/// and the backend key on the backend's routes, which ask ``requireBackend(_:)``. A repeat
/// of a request that passed is answered from memory only with its exact bytes
/// (``ResponseCache``), so these rules are written here alone.
struct AccessPolicy: Sendable {
    let apiKey: APIKey?
    let backendKey: APIKey?
    let cors: CORSPolicy?
    /// What a refused key waits before its answer.
    let refusalPause: KeyRefusalPause

    /// Sends a response, after the refusal pause when it refuses a key.
    func send(_ response: Response, through responder: Responder) {
        if response.rejection == Problem.unauthorizedSlug {
            refusalPause.send(response, through: responder)
        } else {
            responder.send(response)
        }
    }

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
        if apiKey != nil, Self.requiresKey(request.rawPath) {
            let authorization = Self.presentedAuthorization(request)
            guard var value = authorization, value.withUTF8({ authorizesAPI(UnsafeRawBufferPointer($0)) }) else {
                let presented = authorization != nil || request.headers.single("Authorization") != .absent
                var response = Problem.unauthorized(.api, presented: presented).response()
                if let added { response.appendHeaderFields(added) }
                return .answer(response)
            }
        }
        return .pass(adding: added)
    }

    /// Whether an Authorization header's value carries the API key or the backend key.
    /// Both are compared, whatever the first says, so that timing does not tell which
    /// key a guess came closer to.
    private func authorizesAPI(_ header: UnsafeRawBufferPointer) -> Bool {
        let api = apiKey?.authorizes(headerValue: header) ?? false
        let backend = backendKey?.authorizes(headerValue: header) ?? false
        return api || backend
    }

    /// Passes a request to a backend route: 403 while no backend key is configured, 401
    /// without the key.
    func requireBackend(_ request: Request) throws(Problem) {
        guard let backendKey else { throw Problem.backendDisabled }
        let authorization = Self.presentedAuthorization(request)
        guard var value = authorization, value.withUTF8({ backendKey.authorizes(headerValue: UnsafeRawBufferPointer($0)) }) else {
            throw Problem.unauthorized(.backend, presented: authorization != nil || request.headers.single("Authorization") != .absent)
        }
    }

    /// Whether a request carries the backend key (which its routes require, and which lifts
    /// the limits per client address).
    func carriesBackendKey(_ request: Request) -> Bool {
        guard let backendKey, var value = Self.presentedAuthorization(request) else { return false }
        return value.withUTF8 { backendKey.authorizes(headerValue: UnsafeRawBufferPointer($0)) }
    }

    /// The credentials a request presents, as an Authorization header's value: its one
    /// header; on a stream's path without one, `Bearer` and its `?key=` (a browser's
    /// EventSource cannot send headers; the access log leaves queries out).
    private static func presentedAuthorization(_ request: Request) -> String? {
        switch request.headers.single("Authorization") {
        case .one(let value): return value
        case .repeated: return nil
        case .absent:
            // A repeated `?key=`, refused as every repeated query parameter is, presents no
            // key, as a repeated header does.
            guard isStream(request.rawPath), case .present(let key?) = try? APIContext.queryParameter("key", of: request) else { return nil }
            return "Bearer " + key
        }
    }

    /// Whether a path is a stream's, which may carry its key as `?key=`.
    static func isStream(_ rawPath: String) -> Bool {
        rawPath.hasSuffix("/stream") && requiresKey(rawPath)
    }

    /// Whether a path needs the API key: every `/v1` route, and the preview page's catalogue
    /// (it names the definition files); `/healthz`, `/metrics` and `/openapi.json` stay open
    /// for probes and scrapers, and the preview page's own files, which hold no data.
    ///
    /// Judged on the segments the router matches: it decodes escapes first, so `/v%31/screens`
    /// is `/v1/screens` and needs the key as much. A path it cannot decode needs the key too.
    static func requiresKey(_ rawPath: String) -> Bool {
        guard rawPath.utf8.contains(UInt8(ascii: "%")) else {
            return rawPath == "/v1" || rawPath.hasPrefix("/v1/") || rawPath.hasPrefix("/preview/api/")
        }
        guard let segments = Request.pathSegments(of: rawPath) else { return true }
        return segments.first == "v1" || segments.starts(with: ["preview", "api"])
    }
}
