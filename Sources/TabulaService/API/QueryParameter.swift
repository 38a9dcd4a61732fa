import TabulaHTTP

/// The one rule of every query parameter the API reads: given at most once. A repeated one
/// (`?since=3&since=5`) is refused rather than one of its values picked, so that a client
/// whose URL was built twice over learns it instead of being answered for the wrong copy.
extension APIContext {
    static func queryParameter(_ name: String, of request: Request) throws(Problem) -> Request.QueryValue {
        let (value, count) = request.queryArgument(name)
        guard count <= 1 else {
            throw Problem.invalidQuery("?\(name)= is given \(count) times; a query parameter is given once: keep one")
        }
        return value
    }
}
