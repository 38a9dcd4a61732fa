import TabulaHTTP

/// The one place where what a route gives becomes a response: it runs the handler, turns
/// a thrown or replied problem into its problem document, labels the response with its
/// route and the session's log prefix, keeps a reusable answer for the request's repeats
/// (``ResponseCache``), and sends it (a refused key after the pause). The server's observer
/// then counts it and writes its log line. A class: a later answer's reply holds it by one
/// reference, not a copy of the access policy.
final class RouteResponder: Sendable {
    let access: AccessPolicy

    init(access: AccessPolicy) {
        self.access = access
    }

    func respond(_ handler: RouteHandler, _ context: RouteContext, _ responder: Responder) {
        let answer: RouteAnswer
        do throws(Problem) {
            answer = try handler(context)
        } catch {
            return send(.failure(error), logContext: nil, route: context.pattern, responder)
        }
        switch answer.kind {
        case .now(let response):
            let logContext = answer.session.map(SessionToken.logPrefix)
            if let reusable = answer.reusable, Self.mayReuse(context.request, responder) {
                reusable.cache.remember(reusable, for: context.request, route: context.pattern, logContext: logContext)
            }
            send(.success(response), logContext: logContext, route: context.pattern, responder)
        case .later(let body):
            // The reply keeps the route's name, not the request, which may be large.
            let logContext = answer.session.map(SessionToken.logPrefix)
            let route = context.pattern
            body(Reply { [self] result in send(result, logContext: logContext, route: route, responder) })
        }
    }

    /// Whether repeats of `request` may be answered with what it is answered now: a plain
    /// `GET` (a query is not part of the key), answered with nothing added.
    private static func mayReuse(_ request: Request, _ responder: Responder) -> Bool {
        request.method == .get && request.rawQuery.isEmpty && !responder.addsHeaderFields
    }

    /// Sends a problem the router found (no route matched).
    func refuse(_ problem: Problem, pattern: String, _ responder: Responder) {
        var response = problem.response()
        response.route = pattern
        access.send(response, through: responder)
    }

    /// Sends what the access policy answers before routing (a preflight, a refused key).
    func answer(_ response: Response, _ responder: Responder) {
        access.send(response, through: responder)
    }

    private func send(_ result: Result<Response, Problem>, logContext: String?, route: String, _ responder: Responder) {
        var response: Response
        switch result {
        case .success(let answer): response = answer
        case .failure(let problem): response = problem.response()
        }
        response.route = route
        // Only the prefix the access log shows (a small string).
        response.logContext = logContext
        access.send(response, through: responder)
    }
}
