import HTTPTypes
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// The routes: the API's, and the operator's (`/healthz`, `/metrics`).
extension TabulaService {
    static func addAPIRoutes(to router: inout RouteTable, _ api: APIContext) {
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
        router.add(.post, "/v1/screens/{id}/edit") { context throws(Problem) in try api.answerEvent(.edit, context) }
        router.add(.post, "/v1/screens/{id}/move") { context throws(Problem) in try api.answerEvent(.move, context) }
        router.add(.post, "/v1/screens/{id}/action") { context throws(Problem) in try api.answerEvent(.action, context) }
    }

    static func addOperationalRoutes(
        to router: inout RouteTable, metrics: ServiceMetrics, store: any SessionStore, streams: StreamHub, clients: ClientLimits,
        caches: LimitCounts, actions: ActionCaller, serverLoad: Locked<(@Sendable () -> ServerLoad)?>
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
            let load = serverLoad.withLock { $0?() } ?? ServerLoad(openConnections: 0, requestsInProgress: 0)
            var fields = HTTPFields()
            fields[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            fields[.cacheControl] = "no-store"
            return .now(
                Response(
                    status: .ok, headerFields: fields,
                    body: metrics.exposition(
                        server: load, sessions: store.sessionCount(), openStreams: streams.count,
                        actionConnections: actions.connectionsOpened, limits: [store.limitCounts, clients.limitCounts, caches])))
        }
    }
}
