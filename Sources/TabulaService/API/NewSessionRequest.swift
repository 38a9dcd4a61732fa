import TabulaCore

/// The body of `POST /v1/sessions`, which may be empty:
/// `{"client": {...}?, "state": {...}?, "subject": STRING?}`. The client context is the
/// client's own (``ClientRequest``); the state and subject are the backend's (they need the
/// backend key), and the state is checked against the catalogue's schema by the route, once
/// the key is.
struct NewSessionRequest: Sendable {
    /// The client's language and kinds.
    var client: ClientContext?
    /// The initial state's members as sent; keys not given take their defaults.
    var state: JSONValue?
    /// The backend's name for the session's user.
    var subject: String?

    static let fields = ["client", "state", "subject"]
    static let maxSubjectBytes = 256

    /// Whether the request carries anything only a backend may send.
    var needsBackendKey: Bool { state != nil || subject != nil }

    /// Decodes a body; an empty one asks for nothing. Problems are 400s that say which
    /// member to fix; the subject's length is ``checkSubject()``'s, once the backend's key
    /// has been asked for.
    static func decode(_ body: [UInt8], limits: ClientLimits) throws(Problem) -> NewSessionRequest {
        guard body.contains(where: { !isBlank($0) }) else { return NewSessionRequest() }
        var request = NewSessionRequest()
        for (key, value) in try JSONBody.members(body) {
            switch key {
            case "client":
                request.client = try ClientRequest.decode(value, at: "client", limits: limits)
            case "state":
                request.state = value
            case "subject":
                guard case .string(let subject) = value else {
                    throw Problem.invalidBody("subject must be a string (the backend's id of the user), not \(value.typeName)")
                }
                request.subject = subject
            default:
                throw Problem.invalidBody("unknown field \"\(key.clippedForDetail)\"; a new session takes \(fields.joined(separator: ", "))")
            }
        }
        return request
    }

    /// A subject over its limit is a 422: asked after the key, so that a request without
    /// the backend's key learns that it needs one, whatever its subject.
    func checkSubject() throws(Problem) {
        guard let subject, subject.utf8.count > Self.maxSubjectBytes else { return }
        throw Problem.subjectTooLong(bytes: subject.utf8.count, limit: Self.maxSubjectBytes)
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
