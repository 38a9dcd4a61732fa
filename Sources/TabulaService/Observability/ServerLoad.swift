/// What the HTTP server holds right now, as `/metrics` reports it.
struct ServerLoad: Sendable {
    /// Client connections open (`tabula_http_open_connections`).
    var openConnections: Int
    /// Requests between their first byte and their answer's completion, the scrape that
    /// reports them included (`tabula_http_requests_in_progress`): what a stop still waits
    /// for.
    var requestsInProgress: Int
}
