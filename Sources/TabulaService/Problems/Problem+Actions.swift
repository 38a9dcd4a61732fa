import HTTPTypes

/// Problems of events whose actions ask the app's backend: the backend or its settings are
/// at fault, not the client; nothing changed, and a retry with the same `eventId` is safe.
extension Problem {
    /// The backend answered, but the event, decided again on the session as it is now, no
    /// longer reaches its call (`reason`): the backend acted on it, so the refusal is not the
    /// client's.
    static func sessionChangedUnderCall(_ action: String, because reason: String) -> Problem {
        actionFailed(
            action,
            "the session changed while the backend answered, and the event no longer reaches its call (\(reason)); Tabula kept none of the answer")
    }

    static func actionTimeout(_ action: String, after timeout: Duration) -> Problem {
        Problem(
            slug: "action-timeout", title: "Action Timeout", status: .gatewayTimeout,
            detail:
                "the backend did not answer the action \"\(action)\" within \(timeout) (--actions-timeout); nothing changed. Retry with the same eventId")
    }

    static func actionFailed(_ action: String, _ cause: String) -> Problem {
        Problem(
            slug: "action-failed", title: "Action Failed", status: .badGateway,
            detail:
                "the backend's action \"\(action)\" failed: \(cause). Nothing changed; send the event again (with its eventId, if it had one) once the backend is fixed"
        )
    }

    static func actionsBusy(limit: Int) -> Problem {
        Problem(
            slug: "actions-busy", title: "Actions Busy", status: .serviceUnavailable,
            detail: "this instance has its limit of \(limit) calls to the backend in flight (--actions-concurrency); nothing changed. Retry shortly",
            extensions: ["limit": .number(Double(limit))], headerFields: [.retryAfter: "1"])
    }

    static func actionsNotConfigured(_ action: String) -> Problem {
        Problem(
            slug: "actions-not-configured", title: "Actions Not Configured", status: .serviceUnavailable,
            detail:
                "the event reached the action {\"call\": \"\(action)\"}, but this instance has no backend to ask: start it with --actions-url and --actions-secret. Nothing changed"
        )
    }
}
