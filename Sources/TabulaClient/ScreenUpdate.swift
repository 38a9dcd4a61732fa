import TabulaModel

/// What a screen handle publishes, in order.
public enum ScreenUpdate: Sendable {
    /// Animate `changes` (in `performBatchUpdates`, see `ChangeSet.batchUpdates`) from the
    /// screen published before; `screen` is the result.
    case changes(ChangeSet, screen: Screen)
    /// Show this screen whole (reload the table): the first screen, and whenever the copy had
    /// to be fetched again.
    case screen(Screen)
    /// The service applied an event (its changes come as `changes` before this); `effects`
    /// are what its answer asks the client to do, in order.
    case answered(ClientEvent, effects: [ScreenEffect], submitted: SubmitOutcome?)
    /// The service refused an event; the screen that follows shows what it holds.
    case refused(ClientEvent, ServiceProblem)
    /// The handle stopped and publishes nothing more.
    case ended(EndReason)
}

/// Why a handle stopped.
public enum EndReason: Hashable, Sendable, CustomStringConvertible {
    /// The session was deleted or expired, or its token was never known (401).
    case sessionEnded(String)
    /// A new set of definitions no longer has the screen.
    case screenRemoved(String)
    /// The item an item screen shows left its list.
    case itemRemoved(String)
    /// The service refuses to show the screen as the handle asks for it (400, such as an
    /// item named for a screen that is not an item screen; or 401 `unauthorized`, an API key
    /// missing or wrong): asking again cannot help.
    case invalidRequest(String)
    /// The app closed the handle.
    case closed

    public var description: String {
        switch self {
        case .sessionEnded(let detail): "the session ended: \(detail)"
        case .screenRemoved(let detail): "the screen was removed: \(detail)"
        case .itemRemoved(let detail): "the item was removed: \(detail)"
        case .invalidRequest(let detail): "the service refused the request: \(detail)"
        case .closed: "closed"
        }
    }
}

/// An event the user made on a row.
public enum ClientEvent: Hashable, Sendable {
    /// A tap; `values` carries the values of a form's rows for a selection that submits it
    /// (a secure field's text included: the screen never holds it).
    case selection(row: String, values: [String: InputValue])
    case toggle(row: String, isOn: Bool)
    case deletion(row: String)
    case edit(row: String, value: InputValue)
    /// A drop: `to` is the row's index path after it, as the table view gives it.
    case move(row: String, to: RowPath)
    case action(row: String, action: String)

    /// The row the event is on.
    public var row: String {
        switch self {
        case .selection(let row, _), .toggle(let row, _), .deletion(let row), .edit(let row, _), .move(let row, _),
            .action(let row, _):
            row
        }
    }

    /// The last part of the event's route.
    var route: String {
        switch self {
        case .selection: "selection"
        case .toggle: "switch"
        case .deletion: "deletion"
        case .edit: "edit"
        case .move: "move"
        case .action: "action"
        }
    }
}

extension EndReason {
    /// The end that a refusal of any of a handle's requests means, or `nil` when asking again
    /// may help. Only the service's own problem documents end a handle: a proxy's or a
    /// portal's page says nothing of the session, and passes.
    init?(refusal problem: ServiceProblem) {
        guard problem.isDocument else { return nil }
        let detail = problem.detail.isEmpty ? problem.description : problem.detail
        if problem.refusesTheAPIKey {
            self = .invalidRequest(detail)
            return
        }
        switch (problem.status, problem.slug) {
        case (401, _): self = .sessionEnded(detail)
        case (404, "unknown-screen"): self = .screenRemoved(problem.detail)
        case (404, "unknown-item"): self = .itemRemoved(problem.detail)
        default: return nil
        }
    }

    /// ``init(refusal:)`` of an answer to a screen's `GET` or stream, which names nothing but
    /// the screen and item: a 400 there refuses them as asked for, and would again. (An
    /// event's 400 refuses that event only.)
    public init?(refusingScreenRequest problem: ServiceProblem) {
        if let reason = EndReason(refusal: problem) {
            self = reason
        } else if problem.isDocument && problem.status == 400 {
            self = .invalidRequest(problem.detail.isEmpty ? problem.description : problem.detail)
        } else {
            return nil
        }
    }
}
