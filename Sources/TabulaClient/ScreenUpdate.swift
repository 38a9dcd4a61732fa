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
