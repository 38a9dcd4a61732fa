import TabulaHTTP

/// The one place where what a route gives becomes a response: it runs the handler, turns
/// a thrown or replied problem into its problem document, labels the response with its
/// route and the session's log prefix, and sends it (a refused key after the pause). The
/// server's observer then counts it and writes its log line.
struct RouteResponder: Sendable {
    let access: AccessPolicy

    func respond(_ handler: RouteHandler, _ context: RouteContext, _ responder: Responder) {
        let answer: RouteAnswer
        do throws(Problem) {
            answer = try handler(context)
        } catch {
            return send(.failure(error), session: nil, context, responder)
        }
        switch answer.kind {
        case .now(let response):
            send(.success(response), session: answer.session, context, responder)
        case .later(let body):
            let session = answer.session
            body(Reply { [self] result in send(result, session: session, context, responder) })
        }
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

    private func send(_ result: Result<Response, Problem>, session: String?, _ context: RouteContext, _ responder: Responder) {
        var response: Response
        switch result {
        case .success(let answer): response = answer
        case .failure(let problem): response = problem.response()
        }
        response.route = context.pattern
        // Only the prefix the access log shows, as on the quick path (a small string).
        response.logContext = session.map(SessionToken.logPrefix)
        access.send(response, through: responder)
    }
}
