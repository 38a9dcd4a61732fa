/// Applies an event to a session's state: the pure heart of every event request.
///
/// The row is looked up by id among all the rows `definition` gives at `state`, hidden ones
/// included, so an event on a hidden row is `rowHidden`, not `unknownRow`; an event on a
/// disabled row (its `enabledWhen` false) is `rowDisabled`, whatever it is. Actions run in
/// order, each seeing the state the previous one left. If the values or the form marks
/// changed, the revision goes up by exactly one; otherwise (a navigate-only selection, a
/// switch set to its current value) the state is returned unchanged. Navigation and URLs
/// are effects the client performs, never state.
///
/// The definition reads the state ``ScreenDefinition/conformed(_:)``; the new state is the
/// given one with the keys the actions set, so keys this definition does not declare, or
/// declares with another type, keep what another version of the definitions stored.
public func reduce(
    _ state: SessionState, _ event: Event, _ definition: ScreenDefinition, item: String? = nil
) throws(EventError) -> (state: SessionState, effects: [Effect]) {
    let reduction = try reduction(of: event, on: state, definition, item: item)
    return (reduction.state, reduction.effects)
}

/// What an event comes to: the new state, the effects, and what a `submit` found; or, when
/// the actions reached a `call` that has no answer yet, what to ask the backend.
public struct Reduction: Sendable {
    public var state: SessionState
    public var effects: [Effect]
    /// The form a `submit` action checked, and whether every row passed (the actions after
    /// a failed submit do not run) and the backend named no errors.
    public var submit: SubmitResult?
    /// The values of that form's rows as the submit found them, secure rows left out
    /// (``InputValue/null`` for no choice or no date): what the feed records of it, whatever
    /// the actions after it did (a `reset`, say).
    public var submittedValues: [(row: String, value: InputValue)] = []
    /// The `call` the actions stopped at, unanswered: nothing of this reduction may be
    /// kept; reduce again with the backend's answer.
    public var pendingCall: PendingCall?
    /// Whether the actions reached the `call` whose answer they were given and applied it
    /// (an answer the actions no longer reach, on a state that changed meanwhile, is not).
    public var appliedCallAnswer = false
    /// The keys whose values `state` changed, each once (empty when it changed none): the
    /// keys ``SessionState/changedKeys(since:)`` finds against the state the event was
    /// applied to. The actions list every key they write, so knowing them costs no walk
    /// over the state's values, which the render, the feed and the store would each make.
    public var changedKeys: [String] = []
    /// Whether the event was an edit of a secure text field: its value was checked and
    /// forgotten, and whoever records the event must not keep it either.
    public var editedSecureField = false
}

/// A `call` the actions reached without an answer: what the backend is asked.
public struct PendingCall: Sendable {
    /// The backend's action, as the definition names it.
    public var action: String
    /// When a `submit` ran before the call: every input row of its form the client sees,
    /// with its value (a secure row's as this event carried it, `""` when it carried none;
    /// `nil` for no choice or no date). Empty when no submit ran.
    public var values: [(row: String, value: InputValue?)]
    /// The state after the actions before the call.
    public var state: SessionState
}

/// The backend's answer to a `call`, checked against the catalogue by the service: the
/// values its state patch sets (a key it removes at its default), the messages it puts on
/// input rows, and its effects.
public struct CallAnswer: Sendable {
    public var values: [String: StateValue]
    public var errors: [String: String]
    public var effects: [Effect]

    public init(values: [String: StateValue] = [:], errors: [String: String] = [:], effects: [Effect] = []) {
        self.values = values
        self.errors = errors
        self.effects = effects
    }
}

/// A submit's outcome, which an event result reports.
public struct SubmitResult: Hashable, Sendable {
    public var form: String
    public var valid: Bool

    public init(form: String, valid: Bool) {
        self.form = form
        self.valid = valid
    }
}

/// ``reduce(_:_:_:)``, with the values a selection carries for the rows of the form its
/// `submit` names: applied as edits first (the same checks, in the same revision), so that
/// a client sends what its user typed and has not sent yet, and every secure value. A
/// secure value is checked and forgotten: it is never state.
///
/// A move's destination is an index path in the copy of the screen the client sent it
/// from, `seen` (the screen at `state` when `nil`). An `append` without an id gives its item
/// one derived from `itemIDSeed` (the service's session id), the revision and the action's
/// place in the event. The revision is the state's, or `itemIDRevision`: an event decided
/// again with its call's answer passes the revision the call was made at, so that the items
/// the backend was sent keep their ids whatever committed meanwhile. On an item screen, `item` is the id of the item it shows: its rows
/// outside `forEach` act on that item (`remove`, `set` of `item.FIELD`).
///
/// An action list may hold one `call`. Without `callAnswer`, the actions stop there and the
/// reduction carries a ``PendingCall``; with the backend's answer, the same event reduced
/// again (on the state it finds then) applies it at the call's place and goes on.
public func reduction(
    of event: Event, on state: SessionState, _ definition: ScreenDefinition, values: [(row: String, value: JSONValue)] = [],
    callAnswer: CallAnswer? = nil, seen: Screen? = nil, itemIDSeed: String = "", itemIDRevision: Int? = nil, item: String? = nil
) throws(EventError) -> Reduction {
    let (conformed, replaced) = definition.conforming(state)
    var reduction = try reduceConforming(
        conformed, event, definition, values: values, callAnswer: callAnswer, seen: seen,
        itemIDs: (itemIDSeed, itemIDRevision ?? state.revision), item: item)
    if reduction.pendingCall != nil { return reduction }
    guard replaced else {
        reduction.state.markConforming(to: definition)
        return reduction
    }
    guard reduction.state.revision != conformed.revision else {
        reduction.state = state
        return reduction
    }
    var result = state
    for key in reduction.changedKeys {
        result.values[key] = reduction.state.values[key]
    }
    result.marks = reduction.state.marks
    result.revision = reduction.state.revision
    reduction.state = result
    return reduction
}

/// ``reduction(of:on:_:values:)`` on a state that conforms to the definition.
private func reduceConforming(
    _ state: SessionState, _ event: Event, _ definition: ScreenDefinition, values: [(row: String, value: JSONValue)],
    callAnswer: CallAnswer?, seen: Screen?, itemIDs: (seed: String, revision: Int), item: String?
) throws(EventError) -> Reduction {
    let instance = try eventRow(event.rowID, state, definition, screenItem: definition.item(item, in: state))
    var run = ActionRun(state: state, definition: definition, callAnswer: callAnswer, itemIDs: itemIDs, itemID: item)
    switch event {
    case .select:
        guard let actions = instance.definition.onSelect else { throw .rowNotSelectable(event.rowID) }
        let form = actions.lazy.compactMap(\.submittedForm).first
        for (row, value) in values {
            // A row of the form takes its value as an edit would, with an edit's refusals
            // (a hidden row's among them); any other row takes none.
            guard let form, definition.isInputRow(row, of: form, run.state) else {
                throw .invalidValue(row: row, accepts: "no value in this event: it is not an input row of the form its submit names")
            }
            try run.edit(row, value)
        }
        run.perform(actions, item: instance.item, list: instance.list)
    case .setSwitch(_, let isOn):
        guard let action = instance.definition.onSwitch else { throw .rowHasNoSwitch(event.rowID) }
        if let field = Action.itemField(of: action.key) {
            run.setItemField(field, .bool(isOn), item: instance.item, list: instance.list)
        } else {
            run.state.values[action.key] = .scalar(.bool(isOn))
            run.setKeys.append(action.key)
        }
    case .delete:
        guard let actions = instance.definition.onDelete else { throw .rowNotDeletable(event.rowID) }
        run.perform(actions, item: instance.item, list: instance.list)
    case .edit(_, let value):
        try run.edit(event.rowID, value)
    case .move(_, let destination):
        guard let list = instance.definition.onMove, let moved = instance.item else { throw .rowNotMovable(event.rowID) }
        let move = ItemMove(row: instance.definition, rowID: event.rowID, item: moved, list: list)
        // On an item screen, the copy shows the screen's item.
        let copy = seen ?? render(definition, state, item: item)
        run.state.values[list] = .list(try move.reorder(state.records(list), seen: copy, to: destination))
        run.setKeys.append(list)
    case .action(_, let actionID):
        var context = definition.context(state, screenItem: run.screenItem)
        context.item = instance.item
        guard let action = instance.definition.swipeActions.first(where: { $0.id == actionID }), action.visibleWhen?.isTrue(context) ?? true else {
            throw .unknownAction(row: event.rowID, action: actionID)
        }
        run.perform(action.onAction, item: instance.item, list: instance.list)
    }
    if let failure = run.failure { throw failure }
    let editedSecureField = if case .edit = event { run.secureValues[event.rowID] != nil } else { false }
    if let pendingCall = run.pendingCall {
        return Reduction(
            state: run.state, effects: run.effects, submit: run.submit, submittedValues: run.submittedValues, pendingCall: pendingCall,
            editedSecureField: editedSecureField)
    }
    var next = run.state
    var changedKeys: [String] = []
    for key in run.setKeys where !changedKeys.contains(key) && StateValue.differ(state.values[key], next.values[key]) {
        changedKeys.append(key)
    }
    guard !changedKeys.isEmpty || next.marks != state.marks else {
        return Reduction(
            state: state, effects: run.effects, submit: run.submit, submittedValues: run.submittedValues,
            appliedCallAnswer: run.appliedCallAnswer, editedSecureField: editedSecureField)
    }
    next.revision = state.revision + 1
    return Reduction(
        state: next, effects: run.effects, submit: run.submit, submittedValues: run.submittedValues,
        appliedCallAnswer: run.appliedCallAnswer, changedKeys: changedKeys, editedSecureField: editedSecureField)
}

/// The row an event names, refused unless it is on screen and enabled.
private func eventRow(_ id: String, _ state: SessionState, _ definition: ScreenDefinition, screenItem: Record?) throws(EventError) -> RowInstance {
    guard let instance = definition.rowInstance(id, state, screenItem: screenItem) else { throw .unknownRow(id) }
    guard instance.isVisible else { throw .rowHidden(id) }
    guard instance.isEnabled else { throw .rowDisabled(id) }
    return instance
}

/// One event's actions as they run: the state they leave, what they set, the effects, the
/// submit's outcome, and the secure values the event carried (for its submit only).
private struct ActionRun {
    var state: SessionState
    let definition: ScreenDefinition
    /// Only keys an action set can differ, so only they are compared afterwards.
    var setKeys: [String] = []
    var effects: [Effect] = []
    var submit: SubmitResult?
    var submittedValues: [(row: String, value: InputValue)] = []
    var secureValues: [String: InputValue] = [:]
    /// A failed submit, a backend's errors, or a call to make stop the actions after it.
    var stopped = false
    /// The backend's answer to this event's `call`, once it was asked.
    let callAnswer: CallAnswer?
    var pendingCall: PendingCall?
    var appliedCallAnswer = false
    /// What an `append` without an id derives its item's id from, with `actionPlace`, the
    /// count of actions run so far in the event.
    let itemIDs: (seed: String, revision: Int)
    var actionPlace = 0
    /// Why the event cannot be applied, found by an action (which stops the others).
    var failure: EventError?

    /// On an item screen, the id of the item it shows.
    let itemID: String?

    init(state: SessionState, definition: ScreenDefinition, callAnswer: CallAnswer?, itemIDs: (seed: String, revision: Int), itemID: String?) {
        self.state = state
        self.definition = definition
        self.callAnswer = callAnswer
        self.itemIDs = itemIDs
        self.itemID = itemID
    }

    /// An item screen's item as the actions so far left it; `nil` once removed.
    var screenItem: Record? { definition.item(itemID, in: state) }

    /// An input row's new value: it must fit the row's control; `onEdit` stores it. A row
    /// with rules becomes touched; a secure field's value is checked, what it came to kept,
    /// and the value forgotten (kept only for this event's submit).
    mutating func edit(_ rowID: String, _ json: JSONValue) throws(EventError) {
        let instance = try eventRow(rowID, state, definition, screenItem: screenItem)
        let row = instance.definition
        // The row as this client draws it: an input only when it lists the kind.
        guard row.isInput, row.shown(drawing: state.client.kinds) === row else {
            throw .rowNotEditable(rowID)
        }
        var context = definition.context(state, screenItem: screenItem)
        context.item = instance.item
        let control = row.control(context)
        guard row.onEdit != nil || control.isSecureText else { throw .rowNotEditable(rowID) }
        guard let sent = InputValue(json: json), control.accepts(sent) else {
            throw .invalidValue(row: rowID, accepts: control.acceptedValues)
        }
        let value = control.settled(sent)
        let mark = FormMarks.key(screen: definition.id, row: rowID)
        state.marks.clearBackendError(mark)
        if control.isSecureText {
            secureValues[rowID] = value
            touch(mark)
            state.marks.secureResults[mark] = row.firstFailingRule(of: value, context: context) { _ in nil } ?? FormMarks.passed
        } else {
            if !row.validate.isEmpty { touch(mark) }
            // What its form's last submit kept of it (an `equals` with a secure field that
            // failed) lasts until this edit.
            if state.marks.secureResults[mark] != nil { state.marks.secureResults[mark] = nil }
        }
        if !state.marks.secureResults.isEmpty { forgetEqualsFailures(comparingWith: rowID) }
        switch row.onEdit {
        case .set(let key)?:
            state.values[key] = .scalar(value.stateValue)
            setKeys.append(key)
        case .actions(let actions)?:
            perform(actions, item: instance.item, list: instance.list, editedValue: value.stateValue)
        case nil:
            break
        }
    }

    /// Marks a row touched; each time the touched rows come to another multiple of 64,
    /// first forgets the marks of rows gone (``forgetMarksOfRowsGone()``), so that an edit
    /// pays for that walk over the marks once in 64 new ones.
    private mutating func touch(_ mark: String) {
        guard state.marks.touched.insert(mark).inserted, state.marks.touched.count.isMultiple(of: 64) else { return }
        forgetMarksOfRowsGone()
    }

    /// Forgets the marks of this screen's rows that the state no longer has (a repeated row
    /// whose item left its list). Nothing else would: a reset or a submit finds a form's
    /// marks by their rows, and a client that adds an item, edits its row and removes it,
    /// again and again, would grow its session's marks without bound.
    private mutating func forgetMarksOfRowsGone() {
        let prefix = FormMarks.key(screen: definition.id, row: "")
        let state = state
        let isGone = { [definition] (mark: String) in
            mark.hasPrefix(prefix) && definition.rowLocator.locate(String(mark.dropFirst(prefix.count)), in: state) == nil
        }
        for mark in state.marks.touched where isGone(mark) { self.state.marks.touched.remove(mark) }
        for mark in state.marks.secureResults.keys where isGone(mark) { self.state.marks.secureResults[mark] = nil }
        for mark in state.marks.backendErrors.keys where isGone(mark) { self.state.marks.clearBackendError(mark) }
    }

    /// Forgets what a submit found of `equals` rules that failed against row `rowID`, whose
    /// value this edit replaced: until the next submit the comparison passes, as it did
    /// before the first (one of its values is secure, and not kept). A row that is not secure
    /// shows its rules' verdict on its value again. A secure row's kept result becomes
    /// "passed" when every rule after that `equals` is an `equals` too, which passes without
    /// the values; otherwise what those rules say of its value is not known, and the kept
    /// failure stays until the row's own next edit or its form's next submit.
    private mutating func forgetEqualsFailures(comparingWith rowID: String) {
        let prefix = FormMarks.key(screen: definition.id, row: "")
        for (mark, result) in state.marks.secureResults where mark.hasPrefix(prefix) {
            let row = String(mark.dropFirst(prefix.count))
            guard row != rowID, let instance = definition.rowInstance(row, state, screenItem: screenItem) else { continue }
            let rules = instance.definition.validate
            guard rules.indices.contains(result), case .equals(row: rowID) = rules[result].check else { continue }
            if !definition.isSecureTextField(row: row, state, item: itemID) {
                state.marks.secureResults[mark] = nil
            } else if rules[(result + 1)...].allSatisfy({ if case .equals = $0.check { true } else { false } }) {
                state.marks.secureResults[mark] = FormMarks.passed
            }
        }
    }

    /// Sets a field of the `forEach` item an event's row shows, in its list.
    mutating func setItemField(_ field: String, _ value: FieldValue, item: Record?, list: String?) {
        guard let item, let list else { return }
        var records = state.records(list)
        guard let index = records.firstIndex(where: { $0.id == item.id }) else { return }
        records[index].fields[field] = value
        state.values[list] = .list(records)
        setKeys.append(list)
    }

    mutating func perform(_ actions: [Action], item: Record?, list: String? = nil, editedValue: FieldValue? = nil) {
        for action in actions where !stopped {
            actionPlace += 1
            // The item as the actions before this one left it.
            let current = item.flatMap { item in list.flatMap { state.records($0).first { $0.id == item.id } } } ?? item
            var context = definition.context(state, screenItem: screenItem)
            context.item = current
            context.editedValue = editedValue
            switch action {
            case .toggle(let key):
                let current = state.scalar(key) == .bool(true)
                state.values[key] = .scalar(.bool(!current))
                setKeys.append(key)
            case .set(let assignments):
                // Every value is computed from the state before this action, then stored.
                let values = assignments.map { ($0.key, $0.value.evaluate(context)) }
                for (key, value) in values {
                    if let field = Action.itemField(of: key) {
                        setItemField(field, value, item: item, list: list)
                        continue
                    }
                    state.values[key] = .scalar(value)
                    setKeys.append(key)
                }
            case .navigate(let screen, let itemID):
                effects.append(.navigate(screen: screen, item: itemID.map { $0.evaluate(context) }))
            case .back:
                effects.append(.back)
            case .open(let url):
                effects.append(.openURL(url.evaluate(context)))
            case .remove(let list):
                guard let item else { continue }
                state.values[list] = .list(state.records(list).filter { $0.id != item.id })
                setKeys.append(list)
            case .submit(let form):
                let valid = submit(form)
                submit = SubmitResult(form: form, valid: valid)
                submittedValues = definition.formValues(form, state, screenItem: screenItem)
                stopped = !valid
            case .reset(let form):
                reset(form)
            case .call(let action):
                call(action)
            case .append(let append):
                add(append, context)
            }
        }
    }

    /// Adds an item, its values computed from the state before it; refused when the id it
    /// gives is one the list holds, or one no screen could name.
    private mutating func add(_ append: ItemAppend, _ context: EvaluationContext) {
        var records = state.records(append.list)
        var fields: [String: FieldValue] = [:]
        for field in append.fields { fields[field.name] = field.value.evaluate(context) }
        var id = append.id?.evaluate(context) ?? ""
        if id.isEmpty {
            id = ItemAppend.generatedID(seed: itemIDs.seed, revision: itemIDs.revision, place: actionPlace) { candidate in
                records.contains { $0.id == candidate }
            }
        } else if records.contains(where: { $0.id == id }) {
            failure = .duplicateItem(list: append.list, id: id)
            stopped = true
            return
        } else if let reason = Record.problem(ofID: id) {
            failure = .invalidItemID(list: append.list, id: id, reason: reason)
            stopped = true
            return
        }
        let item = Record(id: id, fields: fields)
        if append.place == .start { records.insert(item, at: 0) } else { records.append(item) }
        state.values[append.list] = .list(records)
        setKeys.append(append.list)
    }

    /// Touches every input row of the form the client sees and checks it: a secure row
    /// against the value this event carried (none counts as empty), whose result it keeps;
    /// an `equals` with a secure row compares the values this event carried, and a failure
    /// only that comparison finds is kept too, to show until the row's next edit (it cannot
    /// be found again without the secure value).
    private mutating func submit(_ form: String) -> Bool {
        var valid = true
        // Submits are few, and each walks the form's marks anyway.
        if !state.marks.isEmpty { forgetMarksOfRowsGone() }
        // The backend's messages last until the form's next submit, on its hidden rows too.
        if !state.marks.backendErrors.isEmpty {
            for mark in definition.formMarks(form, in: state.marks, state) { state.marks.clearBackendError(mark) }
        }
        let snapshot = state
        let screenItem = screenItem
        let inputs = definition.formInputs(form, state, screenItem: screenItem)
        // A secure row of the form that the submit carries no value for counts as empty, for
        // the rules that compare with it as for its own.
        let sent = secureValues
        let unsentSecureRows = Set(inputs.lazy.filter { $0.content.isSecureText && sent[$0.id] == nil }.map(\.id))
        let other: (String) -> InputValue? = { [secureValues, definition] row in
            if unsentSecureRows.contains(row) { return .string("") }
            return secureValues[row] ?? definition.inputValue(ofRow: row, snapshot, screenItem: screenItem)
        }
        for input in inputs {
            let mark = FormMarks.key(screen: definition.id, row: input.id)
            state.marks.touched.insert(mark)
            var context = definition.context(snapshot, screenItem: screenItem)
            context.item = input.item
            if input.content.isSecureText {
                let failure = input.definition.firstFailingRule(of: secureValues[input.id] ?? .string(""), context: context, other: other)
                state.marks.secureResults[mark] = failure ?? FormMarks.passed
                if failure != nil { valid = false }
                continue
            }
            let value = input.content.inputValue
            let failure = input.definition.firstFailingRule(of: value, context: context, other: other)
            if failure != nil { valid = false }
            let foundWithoutSecureValues =
                failure != nil
                && input.definition.firstFailingRule(of: value, context: context) {
                    definition.inputValue(ofRow: $0, snapshot, screenItem: screenItem)
                } != nil
            if let failure, !foundWithoutSecureValues {
                state.marks.secureResults[mark] = failure
            } else if state.marks.secureResults[mark] != nil {
                state.marks.secureResults[mark] = nil
            }
        }
        return valid
    }

    /// Sets the keys the form's rows store into back to their defaults, and clears the
    /// marks of the form's rows, hidden ones too.
    private mutating func reset(_ form: String) {
        for key in definition.formKeys(form) {
            state.values[key] = definition.declarations.first { $0.key == key }?.declaration.defaultValue
            setKeys.append(key)
        }
        guard !state.marks.isEmpty else { return }
        for mark in definition.formMarks(form, in: state.marks, state) {
            state.marks.touched.remove(mark)
            state.marks.secureResults[mark] = nil
            state.marks.clearBackendError(mark)
        }
    }

    /// Without the backend's answer: stops, saying what to ask it. With it: sets the values
    /// it gave, puts its messages on their rows (touched, and stopping the actions after
    /// it), and adds its effects.
    private mutating func call(_ action: String) {
        guard let answer = callAnswer else {
            var values: [(row: String, value: InputValue?)] = []
            if let form = submit?.form {
                for input in definition.formInputs(form, state, screenItem: screenItem) {
                    values.append((input.id, input.content.isSecureText ? secureValues[input.id] ?? .string("") : input.content.inputValue))
                }
            }
            pendingCall = PendingCall(action: action, values: values, state: state)
            stopped = true
            return
        }
        appliedCallAnswer = true
        for (key, value) in answer.values {
            state.values[key] = value
            setKeys.append(key)
        }
        for (row, message) in answer.errors {
            let mark = FormMarks.key(screen: definition.id, row: row)
            state.marks.touched.insert(mark)
            state.marks.backendErrors[mark] = message
        }
        effects.append(contentsOf: answer.effects)
        if !answer.errors.isEmpty {
            stopped = true
            submit?.valid = false
        }
    }
}
