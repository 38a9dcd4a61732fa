import HTTPTypes
import TabulaCore
import TabulaHTTP

/// `GET /v1/screens/{id}`: the screen at the session's revision (or at the default state,
/// without a session), 200 with its ETag or 304. An answer given without waiting may be
/// reused for repeats of the request (``ResponseCache``), which then never reach this route.
extension APIContext {
    static let screenRoute = "/v1/screens/{id}"

    func getScreen(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        let served = self.served
        let definition = try served.definition(context.parameters["id"] ?? "")
        let item = try Self.itemQuery(context.request, for: definition)
        let token = try sessionToken(context.request)
        let tags = context.request.headers.value("If-None-Match")
        // The response cache keys a request by its path, without the query: an item
        // screen's answers are never reused.
        func reusable(_ answer: ReusableAnswer) -> ReusableAnswer? { item == nil ? answer : nil }
        guard let token else {
            try Self.requireItem(item, definition, in: served.catalogue.initialState)
            let screen = served.defaultScreen(definition, item: item)
            return .now(screen.response(ifNoneMatch: tags), reusable: reusable(ReusableAnswer(cache: served.responses, screen: screen, session: nil)))
        }
        let session = SessionKey(token)
        // The state the store knows without waiting (memory, or SQLite's cache), with the
        // watch that tells the response cache when the screen is no longer current.
        if let known = store.currentStateIfCached(session: session) {
            try Self.requireItem(item, definition, in: known.state)
            let screen = cache.renderedScreen(session: session, definition, known.state, item: item)
            return .now(
                screen.response(ifNoneMatch: tags), session: token,
                reusable: reusable(ReusableAnswer(cache: served.responses, screen: screen, session: (session, known.watch))))
        }
        return .later(session: token) { [self] reply in
            readSession(.token(token), SessionRead(), onProblem: reply.fail) { [self] snapshot in
                do throws(Problem) {
                    try Self.requireItem(item, definition, in: snapshot.current)
                } catch {
                    return reply.fail(error)
                }
                reply(cache.renderedScreen(session: session, definition, snapshot.current, item: item).response(ifNoneMatch: tags))
            }
        }
    }
}
