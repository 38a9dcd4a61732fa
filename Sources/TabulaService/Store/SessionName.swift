/// How a request names a session: a client by its secret token, the app's backend by the
/// session's public id.
public enum SessionName: Sendable, Hashable {
    case token(String)
    case id(String)
}
