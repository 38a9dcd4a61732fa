import HTTPTypes
import TabulaCore

extension Problem {
    /// The keys a route may require: what the problem tells a client to send.
    enum Key {
        /// `--api-key`, on every `/v1` route when configured.
        case api
        /// `--backend-key`, on the backend's routes.
        case backend

        var name: String { self == .api ? "API key" : "backend key" }
        var option: String { self == .api ? "--api-key" : "--backend-key" }
    }

    /// The slug of ``unauthorized(_:presented:)``, whose answers wait for the key refusal pause.
    static let unauthorizedSlug = "unauthorized"

    /// A request without the key its route requires; `presented` when it carried another.
    static func unauthorized(_ key: Key, presented: Bool) -> Problem {
        Problem(
            slug: unauthorizedSlug, title: "Unauthorized", status: .unauthorized,
            detail: presented
                ? "the bearer token is not this service's \(key.name); send Authorization: Bearer <the key given to tabula serve \(key.option)>"
                : "this route requires the \(key.name): send Authorization: Bearer <the key given to tabula serve \(key.option)>",
            headerFields: [.wwwAuthenticate: presented ? #"Bearer realm="tabula", error="invalid_token""# : #"Bearer realm="tabula""#])
    }

    static func corsOriginNotAllowed(_ origin: String) -> Problem {
        Problem(
            slug: "cors-origin-not-allowed", title: "Origin Not Allowed", status: .forbidden,
            detail: "cross-origin requests from \(origin.clippedForDetail) are not allowed; add it to --cors-origins (TABULA_CORS_ORIGINS) to allow them")
    }

    /// A state that would be over a limit (`cause`: "this event", "this state"); nothing
    /// was stored.
    static func stateLimit(_ violation: StateLimits.Violation, cause: String = "this event") -> Problem {
        let detail = overLimit(violation, cause: cause) + "; nothing was stored"
        return switch violation {
        case .stateTooLarge(_, let limit):
            Problem(
                slug: "state-too-large", title: "State Too Large", status: .unprocessableContent, detail: detail,
                extensions: ["limit": .number(Double(limit))])
        case .listTooLong(_, _, let limit):
            Problem(
                slug: "list-too-long", title: "List Too Long", status: .unprocessableContent, detail: detail,
                extensions: ["limit": .number(Double(limit))])
        }
    }

    /// What `cause` would do to a session's state that breaks a limit, with the option that
    /// sets it.
    static func overLimit(_ violation: StateLimits.Violation, cause: String) -> String {
        switch violation {
        case .stateTooLarge(let bytes, let limit):
            "\(cause) would make the session's state \(bytes) bytes, over the limit of \(limit) (--max-state-bytes)"
        case .listTooLong(let key, let count, let limit):
            "\(cause) would make the list \"\(key)\" \(count) records long, over the limit of \(limit) (--max-list-length)"
        }
    }

    /// A new session from a client address that has created its limit's worth lately.
    static func tooManySessions(perMinute: Int, retryAfter seconds: Int) -> Problem {
        Problem(
            slug: "too-many-sessions", title: "Too Many Sessions", status: .tooManyRequests,
            detail:
                "this client address created its limit of \(perMinute) new sessions a minute (--max-new-sessions-per-minute); keep the session token a client has and go on with it, or retry after \(seconds) s",
            extensions: ["limit": .number(Double(perMinute))], headerFields: [.retryAfter: "\(seconds)"])
    }

    /// A backend route, or a new session with data, while no backend key is configured.
    static let backendDisabled = Problem(
        slug: "backend-disabled", title: "Backend API Disabled", status: .forbidden,
        detail:
            "the backend API is off: start tabula serve with --backend-key KEY (env TABULA_BACKEND_KEY) and send Authorization: Bearer KEY")
}
