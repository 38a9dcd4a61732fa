/// Why an outbound request has no answer. A status the server sent, 500 included, is an
/// answer (``HTTPClientResponse``), never one of these.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libcurl is missing, too old, or could not be set up; the text says what to install.
    case unavailable(String)
    /// The answer did not arrive, whole, within the request's timeout.
    case timedOut
    /// The request went wrong on the way: connection refused, name not found, TLS failure,
    /// connection reset, the client stopped; the text is curl's, naming the cause.
    case transport(String)
    /// The answer's body was larger than the client keeps; the transfer was abandoned.
    case answerTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .unavailable(let reason): "outbound HTTP is unavailable: \(reason)"
        case .timedOut: "the server did not answer in time"
        case .transport(let reason): "the request failed: \(reason)"
        case .answerTooLarge(let limit): "the answer was larger than \(limit) bytes"
        }
    }
}
