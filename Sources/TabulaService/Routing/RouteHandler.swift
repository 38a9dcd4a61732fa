import HTTPTypes
import TabulaHTTP

/// What a route handler sees: the request, its path parameters and its route pattern.
struct RouteContext: Sendable {
    let request: Request
    let parameters: RouteParameters
    let pattern: String
}

/// A route's handler: it answers now, or later (once the store has answered), or throws a
/// problem. It never sends anything itself: the ``RouteResponder`` turns what it gives
/// into the response.
typealias RouteHandler = @Sendable (RouteContext) throws(Problem) -> RouteAnswer

/// What a route handler gives: a response, or the work that answers later through a
/// ``Reply``. Either may name the session the request is of, for the request's log line.
struct RouteAnswer: Sendable {
    enum Kind: Sendable {
        case now(Response)
        case later(@Sendable (Reply) -> Void)
    }

    let kind: Kind
    /// The session token the request names, when known: the log line shows its prefix.
    let session: String?
    /// What a repeat of the request may be answered with before routing, when the response
    /// is given now and sent unchanged (see ``ResponseCache``).
    var reusable: ReusableAnswer?

    /// The response, at once; `reusable` for a `GET` whose repeats may get it from memory.
    static func now(_ response: Response, session: String? = nil, reusable: ReusableAnswer? = nil) -> RouteAnswer {
        RouteAnswer(kind: .now(response), session: session, reusable: reusable)
    }

    /// `body` answers through its reply, from any thread, once.
    static func later(session: String? = nil, _ body: @escaping @Sendable (Reply) -> Void) -> RouteAnswer {
        RouteAnswer(kind: .later(body), session: session, reusable: nil)
    }
}

/// The way back for an answer that comes later: a response, or a problem. Only the first
/// call counts.
struct Reply: Sendable {
    let finish: @Sendable (Result<Response, Problem>) -> Void

    func callAsFunction(_ response: Response) {
        finish(.success(response))
    }

    func fail(_ problem: Problem) {
        finish(.failure(problem))
    }

    /// The response, or the problem, a result of either gives.
    func callAsFunction(_ result: Result<Response, Problem>) {
        finish(result)
    }
}

/// Routes and their handlers, built together.
struct RouteTable {
    var router = Router()
    var handlers: [RouteHandler] = []

    mutating func add(_ method: HTTPRequest.Method, _ pattern: String, _ handler: @escaping RouteHandler) {
        router.add(method, pattern)
        handlers.append(handler)
    }
}
