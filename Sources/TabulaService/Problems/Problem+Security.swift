import HTTPTypes
import TabulaCore

extension Problem {
    /// A `/v1` request without the service's API key.
    static func unauthorized(presented: Bool) -> Problem {
        Problem(
            slug: "unauthorized", title: "Unauthorized", status: .unauthorized,
            detail: presented
                ? "the bearer token is not this service's API key; send Authorization: Bearer <the key given to tabula serve --api-key>"
                : "this service requires an API key: send Authorization: Bearer <the key given to tabula serve --api-key>",
            headerFields: [.wwwAuthenticate: presented ? #"Bearer realm="tabula", error="invalid_token""# : #"Bearer realm="tabula""#])
    }

    static func corsOriginNotAllowed(_ origin: String) -> Problem {
        Problem(
            slug: "cors-origin-not-allowed", title: "Origin Not Allowed", status: .forbidden,
            detail: "cross-origin requests from \(origin.clippedForDetail) are not allowed; add it to --cors-origins (TABULA_CORS_ORIGINS) to allow them")
    }

    /// An event that would push the session's state over a limit; nothing was stored.
    static func stateLimit(_ violation: StateLimits.Violation) -> Problem {
        switch violation {
        case .stateTooLarge(let bytes, let limit):
            Problem(
                slug: "state-too-large", title: "State Too Large", status: .unprocessableContent,
                detail: "this event would make the session's state \(bytes) bytes, over the limit of \(limit) (--max-state-bytes); the state is unchanged",
                extensions: ["limit": .number(Double(limit))])
        case .listTooLong(let key, let count, let limit):
            Problem(
                slug: "list-too-long", title: "List Too Long", status: .unprocessableContent,
                detail:
                    "this event would make the list \"\(key)\" \(count) records long, over the limit of \(limit) (--max-list-length); the state is unchanged",
                extensions: ["limit": .number(Double(limit))])
        }
    }
}
