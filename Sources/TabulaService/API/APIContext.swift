import HTTPTypes
import Logging
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// What the API routes share: the catalogue, the store, the screen cache, metrics, logs.
final class APIContext: Sendable {
    let catalogue: Catalogue
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
    let listMemos = ShardedStorage<ListMemo>(count: 8) { ListMemo() }
    /// `GET /v1/screens`, built once.
    let screenList: PreparedResponse?
    /// Each screen's `GET /v1/screens/{id}` target, for answering unparsed GETs by bytes.
    let screenTargets: [ScreenTarget]
    /// The session screens each server thread answered, checked first by unparsed GETs.
    let threadScreens: ThreadScreenCache
    /// Open screen streams, brought forward after every commit.
    let streams: StreamHub

    init(
        catalogue: Catalogue, store: any SessionStore, access: AccessPolicy, metrics: ServiceMetrics, logger: Logger,
        cacheEntries: Int, stateLimits: StateLimits, streams: StreamSettings
    ) throws(StoreError) {
        self.access = access
        self.catalogue = catalogue
        definitions = try DefinitionArchive(catalogue: catalogue, store: store, logger: logger)
        self.stateLimits = stateLimits
        self.store = store
        self.metrics = metrics
        self.logger = logger
        cache = ScreenCache(catalogue: catalogue, maxEntries: cacheEntries)
        let hub = StreamHub(settings: streams, store: store, cache: cache)
        self.streams = hub
        store.observeChanges { [weak hub] notice in hub?.noticed(notice) }
        // A sixteenth per thread: a few server threads together hold a share of the
        // screen cache's bound, not a multiple of it.
        threadScreens = ThreadScreenCache(maxEntriesPerThread: cacheEntries / 16)
        screenTargets = catalogue.screens.map(ScreenTarget.init)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("screens")
        writer.array(catalogue.screens) { writer, screen in
            writer.beginObject()
            writer.key("id"); writer.string(screen.id)
            writer.key("title"); writer.string(screen.title.evaluate(EvaluationContext(state: catalogue.initialState)))
            writer.endObject()
        }
        writer.endObject()
        screenList = PreparedResponse(status: .ok, headerFields: JSONResponse.headers(), body: writer.bytes)
    }

    func definition(_ id: String) throws(Problem) -> ScreenDefinition {
        guard let definition = catalogue.screen(id: id) else {
            throw Problem.unknownScreen(id, known: catalogue.screens.map(\.id))
        }
        return definition
    }

    /// The session token of a request: `nil` without an X-Session header; a 401 or 400
    /// problem for a malformed one.
    func sessionToken(_ request: Request) throws(Problem) -> String? {
        switch request.headers.single("X-Session") {
        case .absent:
            return nil
        case .repeated(let count):
            throw Problem.invalidBody("send one X-Session header, not \(count)")
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
