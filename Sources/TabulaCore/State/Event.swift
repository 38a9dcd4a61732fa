/// What a client reports about a row, by the row's id.
public enum Event: Hashable, Sendable {
    /// The row was selected (tapped).
    case select(row: String)
    /// The row's switch was set to `isOn`.
    case setSwitch(row: String, isOn: Bool)
    /// The row was deleted (swiped away).
    case delete(row: String)
    /// The user changed an input row's value to `value`, as the client sent it (JSON: a
    /// string, a number or `null`; anything else does not fit any row).
    case edit(row: String, value: JSONValue)
    /// The user dragged the row to `to`, the index path it has in the client's copy after
    /// the drop (as `tableView(_:moveRowAt:to:)` gives it).
    case move(row: String, to: RowPath)
    /// The user chose one of the row's swipe actions, by its id.
    case action(row: String, action: String)

    public var rowID: String {
        switch self {
        case .select(let row), .setSwitch(let row, _), .delete(let row), .edit(let row, _), .move(let row, _), .action(let row, _): row
        }
    }

    /// The event's kind as the API and metrics name it: selection, switch or deletion.
    public var kindName: String {
        switch self {
        case .select: "selection"
        case .setSwitch: "switch"
        case .delete: "deletion"
        case .edit: "edit"
        case .move: "move"
        case .action: "action"
        }
    }
}

/// Something the client should do that is not a state change.
public enum Effect: Hashable, Sendable {
    /// Show another screen of the catalogue; for an item screen, the item it shows.
    case navigate(screen: String, item: String? = nil)
    /// Return to the screen the client came from.
    case back
    /// Open a URL.
    case openURL(String)
}

/// Why an event cannot be applied; the session's state is unchanged.
public enum EventError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No row of the screen has this id, at this state.
    case unknownRow(String)
    /// The row exists but is hidden at this state.
    case rowHidden(String)
    /// The row is shown but disabled at this state (its `enabledWhen` is false).
    case rowDisabled(String)
    /// Selection on a row without `onSelect`.
    case rowNotSelectable(String)
    /// A switch event on a row without `onSwitch`.
    case rowHasNoSwitch(String)
    /// Deletion of a row without `onDelete`.
    case rowNotDeletable(String)
    /// An edit of a row that is not an input the client draws, or that has no `onEdit`
    /// and is not a secure text field.
    case rowNotEditable(String)
    /// An edit whose value does not fit the row's control; `accepts` says what does.
    case invalidValue(row: String, accepts: String)
    /// A move of a row without `onMove`.
    case rowNotMovable(String)
    /// A move to a place outside the rows of the row's list in its section; `reason` says
    /// which.
    case invalidMove(row: String, reason: String)
    /// An action event naming an action the row does not show (hidden, or unknown).
    case unknownAction(row: String, action: String)
    /// An `append` whose item's id is one the list holds already.
    case duplicateItem(list: String, id: String)
    /// An `append` whose item's id no screen could name (see ``Record/problem(ofID:)``).
    case invalidItemID(list: String, id: String, reason: String)

    /// The row the refusal is about: the event's own, or one whose value a selection
    /// carried; `nil` for a duplicate item.
    public var row: String? {
        switch self {
        case .unknownRow(let id), .rowHidden(let id), .rowDisabled(let id), .rowNotSelectable(let id), .rowHasNoSwitch(let id),
            .rowNotDeletable(let id), .rowNotEditable(let id), .rowNotMovable(let id):
            id
        case .invalidValue(let row, _), .invalidMove(let row, _), .unknownAction(let row, _): row
        case .duplicateItem, .invalidItemID: nil
        }
    }

    public var description: String {
        switch self {
        case .unknownRow(let id): "the screen has no row \"\(id)\"; fetch the screen and use one of its row ids"
        case .rowHidden(let id): "row \"\(id)\" is hidden at the current state; fetch the screen to see which rows are shown"
        case .rowDisabled(let id): "row \"\(id)\" is disabled at the current state (its \"enabled\" is false); it takes no events until it is enabled"
        case .rowNotSelectable(let id): "row \"\(id)\" is not selectable (its \"selectable\" is false)"
        case .rowHasNoSwitch(let id): "row \"\(id)\" has no switch; send switch events only for rows with one"
        case .rowNotDeletable(let id): "row \"\(id)\" cannot be deleted (its \"deletable\" is false)"
        case .rowNotEditable(let id):
            "row \"\(id)\" cannot be edited: it is not an input row of this client's screen, or its \"editable\" is false"
        case .invalidValue(let id, let accepts): "the value does not fit row \"\(id)\", which accepts \(accepts)"
        case .rowNotMovable(let id): "row \"\(id)\" cannot be moved (its \"movable\" is false)"
        case .invalidMove(let id, let reason): "row \"\(id)\" cannot be moved there: \(reason)"
        case .duplicateItem(let list, let id):
            "\"\(list)\" already holds an item \"\(id)\"; an added item needs an id of its own (leave \"id\" out and Tabula gives one)"
        case .invalidItemID(let list, let id, let reason):
            "an item \"\(id.prefix(64))\" cannot be added to \"\(list)\": \(reason) (leave \"id\" out and Tabula gives one)"
        case .unknownAction(let id, let action):
            "row \"\(id)\" shows no swipe action \"\(action)\"; send one of the ids of its \"leadingActions\" or \"trailingActions\""
        }
    }
}
