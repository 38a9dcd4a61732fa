public import TabulaCore

/// A session about to be created.
public struct NewSession: Sendable {
    /// The secret the client sends in `X-Session` (``SessionToken``).
    public var token: String
    /// The public id the backend names the session by (``SessionID``).
    public var id: String
    /// The backend's name for the session's user, if it gave one.
    public var subject: String?
    public var state: SessionState

    public init(token: String, id: String, subject: String?, state: SessionState) {
        self.token = token
        self.id = id
        self.subject = subject
        self.state = state
    }
}
