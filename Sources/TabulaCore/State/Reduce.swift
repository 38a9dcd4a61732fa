/// Applies an event to a session's state: the pure heart of every event request.
///
/// The row is looked up by id among all the rows `definition` gives at `state`, hidden ones
/// included, so an event on a hidden row is `rowHidden`, not `unknownRow`; an event on a
/// disabled row (its `enabledWhen` false) is `rowDisabled`, whatever it is. Actions run in
/// order, each seeing the state the previous one left. If the values changed, the revision
/// goes up by exactly one; otherwise (a navigate-only selection, a switch set to its
/// current value) the state is returned unchanged. Navigation and URLs are effects the
/// client performs, never state.
///
/// The definition reads the state ``ScreenDefinition/conformed(_:)``; the new state is the
/// given one with the keys the actions set, so keys this definition does not declare, or
/// declares with another type, keep what another version of the definitions stored.
public func reduce(
    _ state: SessionState, _ event: Event, _ definition: ScreenDefinition
) throws(EventError) -> (state: SessionState, effects: [Effect]) {
    let (conformed, replaced) = definition.conforming(state)
    var (next, effects) = try reduceConforming(conformed, event, definition)
    guard replaced else {
        next.markConforming(to: definition)
        return (next, effects)
    }
    guard next.revision != conformed.revision else { return (state, effects) }
    var result = state
    for key in next.changedKeys(since: conformed) {
        result.values[key] = next.values[key]
    }
    result.marks = next.marks
    result.revision = next.revision
    return (result, effects)
}

/// ``reduce(_:_:_:)`` on a state that conforms to the definition.
private func reduceConforming(
    _ state: SessionState, _ event: Event, _ definition: ScreenDefinition
) throws(EventError) -> (state: SessionState, effects: [Effect]) {
    guard let instance = definition.rowInstance(event.rowID, state) else {
        throw .unknownRow(event.rowID)
    }
    guard instance.isVisible else { throw .rowHidden(event.rowID) }
    guard instance.isEnabled else { throw .rowDisabled(event.rowID) }
    var next = state
    var effects: [Effect] = []
    // Only keys an action set can differ, so only they are compared afterwards.
    var setKeys: [String] = []
    switch event {
    case .select:
        guard let actions = instance.definition.onSelect else { throw .rowNotSelectable(event.rowID) }
        perform(actions, on: &next, item: instance.item, strings: definition.strings, effects: &effects, setKeys: &setKeys)
    case .setSwitch(_, let isOn):
        guard let action = instance.definition.onSwitch else { throw .rowHasNoSwitch(event.rowID) }
        next.values[action.key] = .scalar(.bool(isOn))
        setKeys.append(action.key)
    case .delete:
        guard let actions = instance.definition.onDelete else { throw .rowNotDeletable(event.rowID) }
        perform(actions, on: &next, item: instance.item, strings: definition.strings, effects: &effects, setKeys: &setKeys)
    case .edit(_, let json):
        let row = instance.definition
        // The row as this client draws it: an input only when it lists the kind.
        guard RowContent.inputKinds.contains(row.kind), row.shown(drawing: state.client.kinds) === row else {
            throw .rowNotEditable(event.rowID)
        }
        let context = EvaluationContext(state: state, item: instance.item, strings: definition.strings)
        let shown = row.render(context, in: definition)
        guard row.onEdit != nil || shown.content.isSecureText else { throw .rowNotEditable(event.rowID) }
        guard let value = InputValue(json: json), shown.content.accepts(value) else {
            throw .invalidValue(row: event.rowID, accepts: shown.content.acceptedValues)
        }
        // An edit touches a row with rules; a secure field's value is checked, its result
        // kept, and the value forgotten: it is never state.
        if !row.validate.isEmpty {
            let mark = FormMarks.key(screen: definition.id, row: event.rowID)
            next.marks.touched.insert(mark)
            if shown.content.isSecureText {
                next.marks.secureResults[mark] = row.firstFailure(of: value, context: context) { _ in nil } ?? ""
            }
        }
        if case .set(let key)? = row.onEdit {
            next.values[key] = .scalar(value.stateValue)
            setKeys.append(key)
        }
    }
    guard setKeys.contains(where: { StateValue.differ(state.values[$0], next.values[$0]) }) || next.marks != state.marks else {
        return (state, effects)
    }
    next.revision = state.revision + 1
    return (next, effects)
}

private func perform(
    _ actions: [Action], on state: inout SessionState, item: Record?, strings: StringTables?, effects: inout [Effect], setKeys: inout [String]
) {
    for action in actions {
        let context = EvaluationContext(state: state, item: item, strings: strings)
        switch action {
        case .toggle(let key):
            let current = state.scalar(key) == .bool(true)
            state.values[key] = .scalar(.bool(!current))
            setKeys.append(key)
        case .set(let assignments):
            // Every value is computed from the state before this action, then stored.
            let values = assignments.map { ($0.key, $0.value.evaluate(context)) }
            for (key, value) in values {
                state.values[key] = .scalar(value)
                setKeys.append(key)
            }
        case .navigate(let screen):
            effects.append(.navigate(screen: screen))
        case .open(let url):
            effects.append(.openURL(url.evaluate(context)))
        case .remove(let list):
            guard let item else { continue }
            state.values[list] = .list(state.records(list).filter { $0.id != item.id })
            setKeys.append(list)
        }
    }
}
