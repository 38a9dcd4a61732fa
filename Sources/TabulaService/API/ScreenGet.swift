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
        let token = try sessionToken(context.request)
        let tags = context.request.headers.value("If-None-Match")
        guard let token else {
            let screen = served.defaultScreen(definition)
            return .now(screen.response(ifNoneMatch: tags), reusable: ReusableAnswer(cache: served.responses, screen: screen, session: nil))
        }
        let session = SessionKey(token)
        // The state the store knows without waiting (memory, or SQLite's cache), with the
        // watch that tells the response cache when the screen is no longer current.
        if let known = store.currentStateIfCached(session: session) {
            let screen = cache.renderedScreen(session: session, definition, known.state)
            return .now(
                screen.response(ifNoneMatch: tags), session: token,
                reusable: ReusableAnswer(cache: served.responses, screen: screen, session: (session, known.watch)))
        }
        return .later(session: token) { [self] reply in
            readSession(.token(token), SessionRead(), onProblem: reply.fail) { [self] snapshot in
                reply(cache.renderedScreen(session: session, definition, snapshot.current).response(ifNoneMatch: tags))
            }
        }
    }
}
