import TabulaModel

/// What a row's control shows because the user set it, until the service answers for it: an
/// input row's value, or a switch's state.
enum UserValue: Hashable, Sendable {
    case value(InputValue)
    case isOn(Bool)
}

extension ClientEvent {
    /// What the event's rows show because the user set them.
    var userValues: [String: UserValue] {
        switch self {
        case .edit(let row, let value): [row: .value(value)]
        case .toggle(let row, let isOn): [row: .isOn(isOn)]
        case .selection(_, let values): values.mapValues { .value($0) }
        case .deletion, .move, .action: [:]
        }
    }
}

extension Row {
    /// The row showing what the user set, when it is a row of that kind (never a secure
    /// field's text: the screen does not hold it).
    func showing(_ value: UserValue) -> Row {
        var row = self
        switch (value, content) {
        case (.value(let value), let content) where !content.isSecureText:
            if let edited = content.settingInputValue(value) { row.content = edited }
        case (.isOn(let isOn), .titleSwitch(let title, _)):
            row.content = .titleSwitch(title: title, isOn: isOn)
        default:
            break
        }
        return row
    }
}

extension Screen {
    /// The screen showing what the user set, in the rows it has.
    func showing(_ values: [String: UserValue]) -> Screen {
        guard !values.isEmpty else { return self }
        var screen = self
        for (id, value) in values {
            guard let path = screen.path(ofRow: id) else { continue }
            screen.sections[path.section].rows[path.row] = screen.sections[path.section].rows[path.row].showing(value)
        }
        return screen
    }
}

extension ChangeSet {
    /// The change set with every row it brings showing what the user set, so that applying it
    /// never takes a control back from what its user did since.
    func showing(_ values: [String: UserValue]) -> ChangeSet {
        guard !values.isEmpty else { return self }
        func show(_ row: inout Row) {
            if let value = values[row.id] { row = row.showing(value) }
        }
        var changes = self
        for index in changes.rows.updated.indices { show(&changes.rows.updated[index].row) }
        for index in changes.rows.inserted.indices { show(&changes.rows.inserted[index].row) }
        for index in changes.sections.inserted.indices {
            for row in changes.sections.inserted[index].section.rows.indices { show(&changes.sections.inserted[index].section.rows[row]) }
        }
        return changes
    }
}

/// A row the user dragged, until the service answers for the move: it shows after the row
/// it was dropped after (first in its section when none), whatever updates come meanwhile,
/// so that an update never takes it back to be moved again by the answer.
struct UserMove: Hashable, Sendable {
    let row: String
    let after: String?

    /// The move as `shown` has it, the row dropped there.
    init(row: String, in shown: Screen) {
        self.row = row
        guard let path = shown.path(ofRow: row), path.row > 0 else {
            after = nil
            return
        }
        after = shown.sections[path.section].rows[path.row - 1].id
    }
}

extension Screen {
    /// The screen showing the rows the user dragged where they dropped them, in order; a
    /// move whose row, or the row it follows in the row's section, is gone shows nothing.
    func showing(_ moves: [UserMove]) -> Screen {
        guard !moves.isEmpty else { return self }
        var screen = self
        for move in moves {
            guard let source = screen.path(ofRow: move.row) else { continue }
            var rows = screen.sections[source.section].rows
            let row = rows.remove(at: source.row)
            var place = 0
            if let after = move.after {
                guard let anchor = rows.firstIndex(where: { $0.id == after }) else { continue }
                place = anchor + 1
            }
            rows.insert(row, at: place)
            screen.sections[source.section].rows = rows
        }
        return screen
    }
}
