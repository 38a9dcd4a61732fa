import HTTPTypes
import Logging
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// What the API routes share: the catalogue, the store, the screen cache, metrics, logs.
final class APIContext: Sendable {
    /// The catalogue being served; a reload replaces it.
    let catalogues: CurrentCatalogue
    /// The definitions clients' copies may have been rendered with.
    let definitions: DefinitionArchive
    let store: any SessionStore
    /// Who may do what; the backend's routes ask it for the backend key.
    let access: AccessPolicy
    let cache: ScreenCache
    let metrics: ServiceMetrics
    let logger: Logger
    let stateLimits: StateLimits
    /// Each thread's sizes of the lists it measured last, for the state limits.
    let listMemos = ShardedStorage<ListMemo>(perThread: { ListMemo() })
    /// Open screen streams, brought forward after every commit.
    let streams: StreamHub
    /// Writers of one session take turns.
    let turns: SessionTurns
    /// What one client may make the service keep.
    let clients: ClientLimits
    /// The URLs an `openURL` effect may carry.
    let urlSchemes: URLSchemes
    /// What each server thread's cache of answers may hold.
    let threadCacheBounds: CacheBounds
    /// Counts the screens and answers the screen cache and the threads' answer caches
    /// dropped to keep their bounds.
    let cacheLimitCounts = LimitCounts()
    /// Asks the app's backend for events that reach a `call`.
    let actions: ActionCaller

    init(
        catalogue: Catalogue, store: any SessionStore, access: AccessPolicy, metrics: ServiceMetrics, logger: Logger,
        cacheBounds: CacheBounds, stateLimits: StateLimits, streams: StreamSettings, clients: ClientLimits, urlSchemes: URLSchemes,
        actions: ActionCaller, pool: WorkerPool
    ) throws(StoreError) {
        self.access = access
        turns = SessionTurns(handOff: pool.run)
        self.actions = actions
        self.clients = clients
        self.urlSchemes = urlSchemes
        definitions = try DefinitionArchive(catalogue: catalogue, store: store, logger: logger)
        self.stateLimits = stateLimits
        self.store = store
        self.metrics = metrics
        self.logger = logger
        threadCacheBounds = cacheBounds.perThread
        catalogues = CurrentCatalogue(
            ServedCatalogue(catalogue, version: 1, threadCacheBounds: threadCacheBounds, limitCounts: cacheLimitCounts))
        cache = ScreenCache(cacheBounds, limitCounts: cacheLimitCounts)
        let hub = StreamHub(settings: streams, store: store, cache: cache, catalogue: catalogue)
        self.streams = hub
        store.observeChanges { [weak hub] notice in hub?.noticed(notice) }
    }

    /// The catalogue being served, retained for the request.
    var served: ServedCatalogue { catalogues.current }

    /// The current definition of screen `id`; 404 `unknown-screen` when there is none.
    func definition(_ id: String) throws(Problem) -> ScreenDefinition {
        try served.definition(id)
    }

    /// The session token of a request: `nil` without an X-Session header; a 401 or 400
    /// problem for a malformed one.
    func sessionToken(_ request: Request) throws(Problem) -> String? {
        switch request.headers.single("X-Session") {
        case .absent:
            return nil
        case .repeated(let count):
            throw Problem.invalidHeader("X-Session", "send one X-Session header, not \(count)")
        case .one(let token):
            guard SessionToken.isWellFormed(token) else { throw Problem.unknownSession }
            return token
        }
    }
}

/// Helpers for JSON answers.
enum JSONResponse {
    static func headers(cacheControl: String = "no-store") -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.cacheControl] = cacheControl
        return fields
    }

    /// Built once: every JSON answer but the OpenAPI document carries these two fields.
    private static let noStoreHeaders = headers()

    static func make(_ status: HTTPResponse.Status = .ok, _ body: [UInt8]) -> Response {
        Response(status: status, headerFields: noStoreHeaders, body: body)
    }
}
