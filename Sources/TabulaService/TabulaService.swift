public import HTTPTypes
public import Logging
public import TabulaCore
public import TabulaHTTP
import TabulaPlatform

/// Settings of the service around the HTTP server.
public struct ServiceConfiguration: Sendable {
    /// Rendered screens kept for sessions (each a few kilobytes).
    public var screenCacheEntries = 50_000
    /// Where the line per request goes.
    public var accessLog = AccessLog.logger
    /// When set, every `/v1` route requires `Authorization: Bearer <key>` (this key or the
    /// backend key).
    public var apiKey: APIKey?
    /// The key of the app's backend (`Authorization: Bearer <key>`) on the backend's routes;
    /// `nil` turns them off (403).
    public var backendKey: APIKey?
    /// Cross-origin access; `nil` (the default) sends no CORS headers.
    public var cors: CORSPolicy?
    /// Bounds on each session's state.
    public var stateLimits = StateLimits()
    /// Heartbeats and limits of screen streams.
    public var streams = StreamSettings()
    /// Serves the preview page (`/preview`) for authors.
    public var preview = false
    /// How long a request refused for its key (401 `unauthorized`) waits for its answer.
    public var keyRefusalPauseMilliseconds = 250
    /// The service's own threads, where work continues that a store reports from a thread
    /// of its own (``ServiceStore``): one per processor.
    public var workerThreads = ServerConfiguration.processorCount
    /// New sessions a client address may create a minute (a burst of as many, then evenly);
    /// beyond, 429 `too-many-sessions`. The backend's, with its key, are not counted. 0: no limit.
    public var newSessionsPerMinute = 600
    /// The proxies whose `X-Forwarded-For` names the client, for the limits per address.
    public var trustedProxies = TrustedProxies.none
    /// The most row kinds a client context may list (each at most 64 bytes).
    public var maxClientKinds = 64
    /// The URL schemes an `openURL` effect may carry (``URLSchemes``); the catalogue must be
    /// loaded with the same.
    public var urlSchemes = URLSchemes.standardOnly

    public init() {}
}

/// The imperative shell: routes requests to handlers, answers problems, and records
/// metrics and logs. It is the server's ``HTTPHandler``.
public final class TabulaService: HTTPHandler {
    public let metrics: ServiceMetrics
    public let logger: Logger
    let configuration: ServiceConfiguration
    private let router: Router
    private let handlers: [RouteHandler]
    private let responder: RouteResponder
    private let api: APIContext
    private let access: AccessPolicy
    /// Where work continues that a store reports from a thread of its own.
    private let pool: WorkerPool
    private let connectionCount = Locked<(@Sendable () -> Int)?>(nil)
    /// The problems of the last reload, when it was refused; its lock also keeps two
    /// reloads from running at once.
    private let reloadProblems: Locked<[CatalogueProblem]>

    /// Keeps the catalogue's definitions in the store (see ``SessionStore/keepDefinitions(_:)``)
    /// and builds the routes; throws when the store cannot keep them.
    public init(configuration: ServiceConfiguration, catalogue: Catalogue, store storage: any SessionStore, logger: Logger) throws(StoreError) {
        self.configuration = configuration
        self.logger = logger
        let pool = WorkerPool(threads: configuration.workerThreads)
        self.pool = pool
        let store = ServiceStore(storage, pool: pool)
        let metrics = ServiceMetrics()
        self.metrics = metrics
        let access = AccessPolicy(
            apiKey: configuration.apiKey, backendKey: configuration.backendKey, cors: configuration.cors,
            refusalPause: KeyRefusalPause(pauseMilliseconds: configuration.keyRefusalPauseMilliseconds))
        self.access = access
        responder = RouteResponder(access: access)
        let api = try APIContext(
            catalogue: catalogue, store: store, access: access, metrics: metrics, logger: logger,
            cacheEntries: configuration.screenCacheEntries, stateLimits: configuration.stateLimits,
            streams: configuration.streams, clients: ClientLimits(configuration), urlSchemes: configuration.urlSchemes)
        self.api = api
        let problems = Locked<[CatalogueProblem]>([])
        reloadProblems = problems
        var routes = RouteTable()
        if configuration.preview {
            PreviewRoutes.add(to: &routes) { (api.served, problems.withLock { $0 }) }
        }
        Self.addOperationalRoutes(
            to: &routes, metrics: metrics, store: store, streams: api.streams, clients: api.clients, connectionCount: connectionCount)
        Self.addAPIRoutes(to: &routes, api)
        routes.add(.get, "/openapi.json") { _ in
            .now(Response(status: .ok, headerFields: JSONResponse.headers(cacheControl: "no-cache"), body: OpenAPIDocument.bytes))
        }
        router = routes.router
        handlers = routes.handlers
    }

    private static func addAPIRoutes(to router: inout RouteTable, _ api: APIContext) {
        router.add(.get, "/v1/screens") { context throws(Problem) in try api.listScreens(context) }
        router.add(.post, "/v1/sessions") { context throws(Problem) in try api.createSession(context) }
        router.add(.put, APIContext.clientRoute) { context throws(Problem) in try api.putClient(context) }
        router.add(.get, APIContext.sessionRoute) { context throws(Problem) in try api.getSession(context) }
        router.add(.delete, APIContext.sessionRoute) { context throws(Problem) in try api.deleteSession(context) }
        router.add(.patch, APIContext.stateRoute) { context throws(Problem) in try api.writeState(context) }
        router.add(.put, APIContext.stateRoute) { context throws(Problem) in try api.writeState(context) }
        router.add(.get, "/v1/feed") { context throws(Problem) in try api.readFeed(context) }
        router.add(.get, "/v1/feed/stream") { context throws(Problem) in try api.streamFeed(context) }
        router.add(.get, APIContext.screenRoute) { context throws(Problem) in try api.getScreen(context) }
        router.add(.get, "/v1/screens/{id}/changes") { context throws(Problem) in try api.getChanges(context) }
        router.add(.get, APIContext.screenStreamRoute) { context throws(Problem) in try api.openScreenStream(context) }
        router.add(.post, "/v1/screens/{id}/selection") { context throws(Problem) in try api.answerEvent(.selection, context) }
        router.add(.post, "/v1/screens/{id}/switch") { context throws(Problem) in try api.answerEvent(.switch, context) }
        router.add(.post, "/v1/screens/{id}/deletion") { context throws(Problem) in try api.answerEvent(.deletion, context) }
    }

    /// Logs and metrics for the server's events.
    public var observer: any HTTPServerObserver {
        RequestObserver(logger: logger, metrics: metrics, accessLog: configuration.accessLog)
    }

    /// Reads the definitions of `directory` again and serves them, if every one of them is
    /// valid; otherwise the current catalogue keeps serving, and the problems are logged
    /// (with file, line, column and JSON path) and kept for the preview page. Changed
    /// screens reach open streams as change sets. One reload runs at a time.
    @discardableResult
    public func reload(from directory: DefinitionDirectory) -> ReloadOutcome {
        reloadProblems.withLock { lastProblems in
            let outcome: ReloadOutcome
            switch directory.load() {
            case .success(let catalogue):
                outcome = api.adopt(catalogue)
                if case .reloaded = outcome {
                    for warning in catalogue.warnings { logger.warning("\(warning.description)") }
                }
            case .failure(let problems): outcome = .refused(problems, version: api.served.version)
            }
            switch outcome {
            case .reloaded(let version, let changed, let added, let removed):
                lastProblems = []
                let screens = [("changed", changed), ("added", added), ("removed", removed)].filter { !$0.1.isEmpty }
                logger.notice(
                    "reloaded the definitions of \(directory.path): version \(version); \(screens.map { "\($0.0) \($0.1.joined(separator: ", "))" }.joined(separator: "; "))"
                )
            case .unchanged(let version):
                lastProblems = []
                logger.info("the definitions of \(directory.path) are unchanged: still version \(version)")
            case .refused(let problems, let version):
                lastProblems = problems.problems
                logger.error(
                    "the definitions of \(directory.path) were not reloaded (\(problems.problems.count) problem\(problems.problems.count == 1 ? "" : "s")): version \(version) keeps serving"
                )
                for problem in problems.problems { logger.error("\(problem.description)") }
            }
            metrics.counter("tabula_definition_reloads_total", ["outcome": outcome.label]).increment()
            return outcome
        }
    }

    /// The served catalogue's version and the last refused reload's problems.
    public var definitionStatus: CatalogueStatus {
        CatalogueStatus(version: api.served.version, problems: reloadProblems.withLock { $0 })
    }

    /// Every route as (method, pattern).
    public var routes: [(method: HTTPRequest.Method, pattern: String)] { router.patterns }

    /// Stops the threads that bring streams forward, pause refused keys and continue the
    /// stores' work; call after the server stopped and before the store is closed.
    public func close() {
        api.streams.close()
        access.refusalPause.close()
        pool.close()
    }

    /// Lets `/metrics` report the server's open connections.
    public func attach(_ server: HTTPServer) {
        connectionCount.withLock { $0 = { [weak server] in server?.openConnections ?? 0 } }
    }

    public func handle(_ request: Request, responder: Responder) {
        var responder = responder
        switch access.check(request) {
        case .answer(let response): return self.responder.answer(response, responder)
        case .pass(let added): if let added { responder = responder.adding(added) }
        }
        switch router.match(request.method, path: request.rawPath) {
        case .matched(let index, let parameters, let pattern):
            self.responder.respond(handlers[index], RouteContext(request: request, parameters: parameters, pattern: pattern), responder)
        case .methodNotAllowed(let allowed, let pattern):
            self.responder.refuse(.methodNotAllowed(request.method, path: request.rawPath, allowed: allowed), pattern: pattern, responder)
        case .notFound:
            self.responder.refuse(.notFound(path: request.rawPath), pattern: "-", responder)
        case .malformedPath:
            self.responder.refuse(.malformedPath(request.rawPath), pattern: "-", responder)
        }
    }

    public var answersUnparsedGets: Bool { true }

    /// A screen GET answered from memory, skipping the request's parsing and routing, when
    /// the access policy adds nothing to the answer and the screen is known without waiting
    /// (see ``APIContext/knownScreen(_:session:)``, which the routed GET asks as well).
    public func quickAnswer(_ request: UnparsedGet) -> QuickAnswer? {
        guard access.passesUnchanged(request) else { return nil }
        return api.quickScreen(request)
    }

    public func refusal(_ reason: RejectionReason, under configuration: ServerConfiguration) -> Response {
        Problem.refusal(reason, maxBodyBytes: configuration.maxBodyBytes).response(route: "-")
    }

    private static func addOperationalRoutes(
        to router: inout RouteTable, metrics: ServiceMetrics, store: any SessionStore, streams: StreamHub, clients: ClientLimits,
        connectionCount: Locked<(@Sendable () -> Int)?>
    ) {
        router.add(.get, "/healthz") { _ in
            .later { reply in
                store.checkHealth { result in
                    switch result {
                    case .success: reply(JSONResponse.make(.ok, Array(#"{"status":"ok","store":"\#(store.name)"}"#.utf8)))
                    case .failure(let error): reply.fail(.store(error))
                    }
                }
            }
        }
        router.add(
            .get, "/metrics"
        ) { _ in
            let connections = connectionCount.withLock { $0?() } ?? 0
            var fields = HTTPFields()
            fields[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            fields[.cacheControl] = "no-store"
            return .now(
                Response(
                    status: .ok, headerFields: fields,
                    body: metrics.exposition(
                        openConnections: connections, sessions: store.sessionCount(), openStreams: streams.count,
                        limits: [store.limitCounts, clients.limitCounts])))
        }
    }
}
