import HTTPTypes
import TabulaHTTP

/// What a route handler sees: the request, its path parameters and its route pattern.
struct RouteContext: Sendable {
    let request: Request
    let parameters: RouteParameters
    let pattern: String
}

/// A route's handler: it answers through the responder, now or later.
typealias RouteHandler = @Sendable (RouteContext, Responder) -> Void

/// A handler that answers before returning; a thrown problem becomes its response.
func immediate(_ body: @escaping @Sendable (RouteContext) throws(Problem) -> Response) -> RouteHandler {
    { context, responder in
        var response: Response
        do throws(Problem) {
            response = try body(context)
        } catch {
            response = error.response()
        }
        response.route = context.pattern
        responder.send(response)
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
