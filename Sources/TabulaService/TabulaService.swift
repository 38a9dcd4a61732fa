public import HTTPTypes
public import Logging
public import TabulaCore
public import TabulaHTTP
import TabulaPlatform

/// The imperative shell: routes requests to handlers, answers problems, and records
/// metrics and logs. It is the server's ``HTTPHandler``.
public final class TabulaService: HTTPHandler {
    public let metrics: ServiceMetrics
    public let logger: Logger
    let configuration: ServiceConfiguration
    private let router: Router
    private let handlers: [RouteHandler]
    private let responder: RouteResponder
    let api: APIContext
    private let access: AccessPolicy
    /// Where work continues that a store reports from a thread of its own.
    private let pool: WorkerPool
    /// The attached server's open connections and requests in progress, for `/metrics`.
    private let serverLoad = Locked<(@Sendable () -> ServerLoad)?>(nil)
    /// The problems of the last reload, when it was refused; its lock also keeps two
    /// reloads from running at once.
    let reloadProblems: Locked<[CatalogueProblem]>

    /// Keeps the catalogue's definitions in the store (see ``SessionStore/keepDefinitions(_:)``)
    /// and builds the routes; throws when the store cannot keep them.
    public init(configuration: ServiceConfiguration, catalogue: Catalogue, store storage: any SessionStore, logger: Logger) throws(StoreError) {
        self.configuration = configuration
        self.logger = logger
        let pool = WorkerPool(threads: configuration.workerThreads)
        self.pool = pool
        let store = ServiceStore.serving(storage, on: pool)
        let metrics = ServiceMetrics()
        self.metrics = metrics
        let access = AccessPolicy(
            apiKey: configuration.apiKey, backendKey: configuration.backendKey, cors: configuration.cors,
            refusalPause: KeyRefusalPause(pauseMilliseconds: configuration.keyRefusalPauseMilliseconds))
        self.access = access
        responder = RouteResponder(access: access)
        let api = try APIContext(
            catalogue: catalogue, store: store, access: access, metrics: metrics, logger: logger,
            cacheBounds: CacheBounds(entries: configuration.screenCacheEntries, bytes: configuration.screenCacheBytes), stateLimits: configuration.stateLimits,
            streams: configuration.streams, clients: ClientLimits(configuration), urlSchemes: configuration.urlSchemes,
            actions: ActionCaller(settings: configuration.actions, pool: pool, metrics: metrics, logger: logger), pool: pool)
        self.api = api
        let problems = Locked<[CatalogueProblem]>([])
        reloadProblems = problems
        var routes = RouteTable()
        ClientRoutes.add(to: &routes)
        if configuration.preview {
            PreviewRoutes.add(to: &routes) { (api.served, problems.withLock { $0 }) }
        }
        Self.addOperationalRoutes(
            to: &routes, metrics: metrics, store: store, streams: api.streams, clients: api.clients, caches: api.cacheLimitCounts,
            actions: api.actions,
            serverLoad: serverLoad)
        Self.addAPIRoutes(to: &routes, api)
        routes.add(.get, "/openapi.json") { _ in
            .now(Response(status: .ok, headerFields: JSONResponse.headers(cacheControl: "no-cache"), body: OpenAPIDocument.bytes))
        }
        router = routes.router
        handlers = routes.handlers
    }

    /// Logs and metrics for the server's events.
    public var observer: any HTTPServerObserver {
        RequestObserver(logger: logger, metrics: metrics, accessLog: configuration.accessLog)
    }

    /// Every route as (method, pattern).
    public var routes: [(method: HTTPRequest.Method, pattern: String)] { router.patterns }

    /// Stops the threads that bring streams forward, pause refused keys, call the backend
    /// and continue the stores' work; call after the server stopped and before the store is
    /// closed.
    public func close() {
        api.streams.close()
        access.refusalPause.close()
        api.actions.close()
        pool.close()
    }

    /// Why this instance cannot call the backend it is configured with (libcurl cannot be
    /// loaded), for a start-up that should refuse rather than fail every call; `nil` when
    /// it can, or has no backend.
    public var actionsUnavailable: String? { api.actions.unavailable }

    /// Lets `/metrics` report the server's open connections and requests in progress.
    public func attach(_ server: HTTPServer) {
        serverLoad.withLock {
            $0 = { [weak server] in
                ServerLoad(openConnections: server?.openConnections ?? 0, requestsInProgress: server?.requestsInProgress ?? 0)
            }
        }
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

    /// A repeated `GET` answered from the calling thread's memory of the routed answer,
    /// before the request is parsed or routed (see ``ResponseCache``).
    public func quickAnswer(_ request: UnparsedGet) -> QuickAnswer? {
        api.catalogues.withCurrent { $0.responses.answer(request, store: api.store) }
    }

    public func refusal(_ reason: RejectionReason, under configuration: ServerConfiguration) -> Response {
        Problem.refusal(reason, maxBodyBytes: configuration.maxBodyBytes).response(route: "-")
    }

}
