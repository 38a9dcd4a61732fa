import TabulaCore
import TabulaPlatform

/// What an event comes to.
enum EventOutcome: Sendable {
    case answer(EventAnswer)
    case replayed(StoredAnswer)
    case problem(Problem)
    /// The actions reached a `call`: ask the backend, then decide again with its answer.
    case call(CallNeeded)
}

/// What an event that reached a `call` knows of it when it stops there: nothing is
/// committed until the backend answered.
struct CallNeeded: Sendable {
    let pending: PendingCall
    /// The row the event names, by id.
    let row: String
    /// The session's revision the event started from.
    let revision: Int
    let sessionID: String
    let client: ClientContext
}

/// An event's answer, and the screen at the new revision (kept for the next event).
struct EventAnswer: Sendable {
    let body: [UInt8]
    let changed: Bool
    let changeCount: Int
    let newScreen: Screen
}

/// What the pure core decides of an event on a session as one read found it: replay a
/// known event id, or rebuild the client's copy (its definition at its revision), resolve
/// the row in it, reduce the current state with the current definition, diff the copy
/// against the new screen, and say what to commit. Nothing here reads or writes the store
/// (see `SessionTransaction.swift`).
///
/// A class: the transaction's closures each hold the decision, and a reference is one count
/// where a copy of every member was many.
final class EventProcessor: SessionDecision {
    /// The screen's current definition, which applies the event and renders the new screen.
    let definition: ScreenDefinition
    /// The definition that rendered the client's copy.
    let copy: DefinitionArchive.Copy
    let request: EventRequest
    let stateLimits: StateLimits
    /// Each thread's sizes of the lists it measured last.
    let listMemos: ShardedStorage<ListMemo>
    /// The session's screen at a revision, when the screen cache has it: not rendered again.
    let screenForDiff: @Sendable (Int) -> Screen?
    /// The URLs an `openURL` effect may carry.
    let urlSchemes: URLSchemes
    /// The backend's answer to the event's `call`, once it was asked: the event is decided
    /// again with it, on the state the session has then.
    let called: BackendAnswer?

    init(
        definition: ScreenDefinition, copy: DefinitionArchive.Copy, request: EventRequest, stateLimits: StateLimits,
        listMemos: ShardedStorage<ListMemo>, screenForDiff: @escaping @Sendable (Int) -> Screen?, urlSchemes: URLSchemes,
        called: BackendAnswer? = nil
    ) {
        self.definition = definition
        self.copy = copy
        self.request = request
        self.stateLimits = stateLimits
        self.listMemos = listMemos
        self.screenForDiff = screenForDiff
        self.urlSchemes = urlSchemes
        self.called = called
    }

    /// The same event, to be decided again with the backend's answer to its `call`.
    func answered(_ answer: BackendAnswer) -> EventProcessor {
        EventProcessor(
            definition: definition, copy: copy, request: request, stateLimits: stateLimits, listMemos: listMemos,
            screenForDiff: screenForDiff, urlSchemes: urlSchemes, called: answer)
    }

    /// What to read of the session: the client's revision, the event id's answer, and the
    /// session's id when the event may add items (their ids derive from it) or ask the
    /// backend (selections, deletions and swipe actions run action lists that may hold a
    /// `call`).
    var read: SessionRead {
        let mayCall = called == nil && [.selection, .deletion, .action].contains(request.kind) && definition.asksBackend
        return SessionRead(revision: request.revision, eventID: request.eventID, id: mayCall || definition.appendsItems)
    }

    static func refused(_ problem: Problem) -> EventOutcome { .problem(problem) }

    /// The event's outcome, and what to commit for it (`nil`: nothing, as for an event that
    /// changes nothing and carries no id).
    func decide(_ snapshot: SessionSnapshot) -> (outcome: EventOutcome, commit: SessionCommit?) {
        // Searches of long lists read the columns this thread remembers of them.
        switch ItemColumns.$source.withValue(ListMemoColumns(memos: listMemos), operation: { decideOrRefuse(snapshot) }) {
        case .success(let decided): decided
        case .failure(let problem): (.problem(problem), nil)
        }
    }

    private func decideOrRefuse(_ snapshot: SessionSnapshot) -> Result<(outcome: EventOutcome, commit: SessionCommit?), Problem> {
        let time = snapshot.time
        let fingerprint =
            request.eventID == nil
            ? []
            : request.fingerprint(screen: definition.id, valueMayBeSecret: valueMayBeSecret(snapshot.current)) {
                definition.isSecureTextField(row: $0, snapshot.current, item: request.item)
            }
        if let id = request.eventID, let stored = snapshot.answer {
            return stored.fingerprint == fingerprint || matchesWithSecretsLeftOut(stored.fingerprint)
                ? .success((.replayed(stored), nil)) : .failure(.eventIDReused(id))
        }
        let current = snapshot.current
        let item = request.item
        // Decided again once the backend answered, on the state of now: a refusal then is the
        // session's change under the call, which the backend already acted on, not a refusal
        // of the client's event; Tabula keeps none of the answer.
        func refuse(_ problem: Problem) -> Result<(outcome: EventOutcome, commit: SessionCommit?), Problem> {
            guard let called else { return .failure(problem) }
            return .failure(.sessionChangedUnderCall(called.action, because: problem.detail))
        }
        do throws(Problem) {
            try APIContext.requireItem(item, definition, in: current)
        } catch {
            return refuse(error)
        }
        let fromRevision = request.revision ?? current.revision
        let oldState: SessionState
        switch snapshot.past {
        case .found(let state): oldState = state
        case .future(let revision): return refuse(.futureRevision(fromRevision, current: revision))
        case .tooOld(let oldest): return refuse(.staleRevision(fromRevision, oldestKept: oldest, current: current.revision))
        }
        let copyDefinition: ScreenDefinition
        do throws(Problem) {
            copyDefinition = try copy.definition(current: definition)
        } catch {
            return refuse(error)
        }
        let oldScreen =
            copyDefinition === definition
            ? screenForDiff(fromRevision) ?? render(definition, oldState, item: item) : render(copyDefinition, oldState, item: item)
        let rowID: String
        switch request.target {
        case .row(let id):
            rowID = id
        case .indexPath(let path):
            guard let row = oldScreen.row(at: path) else {
                return refuse(
                    .unknownRow(
                        "the copy at revision \(fromRevision) has no row at indexPath [\(path.section), \(path.row)]; fetch the screen again"))
            }
            rowID = row.id
        }
        let event: Event
        switch request.kind {
        case .selection: event = .select(row: rowID)
        case .switch: event = .setSwitch(row: rowID, isOn: request.isOn ?? false)
        case .deletion: event = .delete(row: rowID)
        case .edit: event = .edit(row: rowID, value: request.value ?? .null)
        case .move: event = .move(row: rowID, to: request.destination ?? RowPath(section: 0, row: 0))
        case .action: event = .action(row: rowID, action: request.action ?? "")
        }
        let reduction: Reduction
        do throws(EventError) {
            reduction = try TabulaCore.reduction(
                of: event, on: current, definition, values: request.values, callAnswer: called?.answer, seen: oldScreen,
                itemIDSeed: snapshot.id ?? "", itemIDRevision: called?.revision, item: item)
        } catch {
            return refuse(.eventNotApplicable(error))
        }
        if let pending = reduction.pendingCall {
            guard let sessionID = snapshot.id else { return .failure(.store(StoreError("the store did not give the session's id"))) }
            return .success(
                (.call(CallNeeded(pending: pending, row: rowID, revision: current.revision, sessionID: sessionID, client: current.client)), nil))
        }
        if let called {
            guard reduction.appliedCallAnswer else {
                return .failure(.sessionChangedUnderCall(called.action, because: "a rule now fails, or an action before it changed"))
            }
            for row in called.answer.errors.keys where !definition.hasInputRow(row, current, item: item) {
                return .failure(
                    .actionFailed(
                        called.action, "its \"errors\" name the row \"\(row.clippedForDetail)\", which is not an input row of the screen \"\(definition.id)\""))
            }
        }
        let (next, effects) = (reduction.state, reduction.effects)
        for case .openURL(let url) in effects where !urlSchemes.allows(url) {
            return .failure(.urlRefused(url, row: rowID, schemes: urlSchemes))
        }
        if let called, let refusal = called.navigationRefusal(at: next) { return .failure(.actionFailed(called.action, refusal)) }
        if next.revision != current.revision, let violation = listMemos.withThreadShard({ stateLimits.violation(of: next, reusing: &$0) }) {
            // With the backend's state in it, the state's size is the backend's doing.
            if let called {
                let cause = "its answer (its \"state\", and the messages of its \"errors\", which the session keeps)"
                return .failure(.actionFailed(called.action, Problem.overLimit(violation, cause: cause)))
            }
            return .failure(.stateLimit(violation))
        }
        let newScreen = renderNew(next, changedKeys: reduction.changedKeys, current: current, oldState: oldState, oldScreen: oldScreen)
        // The answer starts from what the user sees: an edited control already shows its
        // value, a dragged row already sits where it was dropped.
        var seen = oldScreen
        if case .edit(_, let json) = event, let value = InputValue(json: json) { seen = seen.showing(value, inRow: rowID) }
        if case .move(_, let destination) = event { seen = seen.moving(row: rowID, to: destination) ?? seen }
        for (row, json) in request.values {
            if let value = InputValue(json: json) { seen = seen.showing(value, inRow: row) }
        }
        // A row the user dropped stays where they dropped it whenever the fewest moves allow,
        // even from a copy another device's changes made stale.
        let dropped: String? = if case .move = event { rowID } else { nil }
        // An event that removed its own screen's item leaves nothing to show: the client goes
        // by the effects (typically back).
        let changes =
            definition.item != nil && definition.item(item, in: next) == nil
            ? ChangeSet() : diff(old: seen, new: newScreen, keeping: dropped)
        let body = AnswerBody.encode(
            definition, item: item, from: fromRevision, to: next.revision, changes: changes, effects: effects, submit: reduction.submit)
        let changed = next.revision != current.revision
        let answer = EventAnswer(body: body, changed: changed, changeCount: changes.itemCount, newScreen: newScreen)
        guard changed || request.eventID != nil else { return .success((.answer(answer), nil)) }
        let recorded = recordedInput(event, reduction)
        let commit = SessionCommit(
            expectedRevision: current.revision,
            change: changed ? (next, feedRecord(request, event, changedKeys: reduction.changedKeys, recorded)) : nil,
            event: EventRecord(
                eventID: request.eventID, kind: request.kind.rawValue, payload: payload(event, recorded), revision: next.revision, time: time),
            answer: request.eventID.map { _ in StoredAnswer(fingerprint: fingerprint, status: 200, body: body, time: time) },
            changedKeys: reduction.changedKeys)
        return .success((.answer(answer), commit))
    }

    /// The screen at the new state, reusing what an event does not touch: rendered from the
    /// screen at the current revision when one is at hand (`oldScreen` is, when the client's
    /// copy is current). `changedKeys` are the keys the event changed in `current`.
    private func renderNew(
        _ next: SessionState, changedKeys: [String], current: SessionState, oldState: SessionState, oldScreen: Screen
    ) -> Screen {
        guard oldScreen.definition == definition.definitionID else { return render(definition, next, item: request.item) }
        if next == oldState { return oldScreen }
        let currentScreen = oldState.revision == current.revision ? oldScreen : screenForDiff(current.revision)
        guard let currentScreen else { return render(definition, next, item: request.item) }
        return render(definition, next, reusing: currentScreen, renderedAt: current, changedKeys: changedKeys)
    }

    /// Whether a stored fingerprint is this request's with the values that may be secret
    /// left out: which rows are secure is judged on the state and definition of now, and a
    /// row can have stopped being one since the first attempt (its item left a list, a
    /// reload changed it), which must not turn a faithful retry into `event-id-reused`. A
    /// fingerprint that held a value never matches one without it, so no other body is
    /// replayed for it.
    private func matchesWithSecretsLeftOut(_ stored: [UInt8]) -> Bool {
        guard case .object(let kept)? = try? JSONParser().parse(stored),
            case .object(var whole)? = try? JSONParser().parse(request.fingerprint(screen: definition.id))
        else { return false }
        if request.kind == .edit, kept["value"] == nil { whole["value"] = nil }
        if case .object(let keptValues)? = kept["values"], case .object(var values)? = whole["values"] {
            for (row, value) in keptValues.pairs where value == .null { values[row] = .null }
            whole["values"] = .object(values)
        }
        return whole == kept
    }

    /// Whether the edit this request carries may be of a secure text field: by its row id,
    /// the current definition says; by index path, any string may be.
    private func valueMayBeSecret(_ current: SessionState) -> Bool {
        guard request.kind == .edit else { return false }
        switch request.target {
        case .row(let id): return definition.isSecureTextField(row: id, current, item: request.item)
        case .indexPath: return request.value?.stringValue != nil
        }
    }

    /// What the event log and the feed may show of an event's input: an edit's value unless
    /// its row is a secure field, a submit's form with its values but the secure ones.
    /// Worked out once, and only for edits and submits.
    private func recordedInput(_ event: Event, _ reduction: Reduction) -> RecordedInput {
        var recorded = RecordedInput()
        if case .edit(_, let value) = event, !reduction.editedSecureField { recorded.value = value }
        if let submit = reduction.submit {
            var values = JSONObject()
            for (row, value) in reduction.submittedValues { values[row] = value.json }
            recorded.form = (submit.form, .object(values))
        }
        return recorded
    }

    /// What the feed says of an event that changed the state.
    private func feedRecord(_ request: EventRequest, _ event: Event, changedKeys: [String], _ recorded: RecordedInput) -> FeedRecord {
        .event(
            kind: request.kind.rawValue, event, screen: definition.id, item: request.item, eventID: request.eventID, changedKeys: changedKeys,
            value: recorded.value, form: recorded.form)
    }

    /// The event as applied (row by id, so the log replays without screens at old
    /// revisions): `{"action": ID?, "form": FORM?, "isOn": BOOL?, "item": ID?, "row": ID,
    /// "screen": ID, "to": PATH?, "value": VALUE?, "values": {ROW: VALUE}?}`, without the
    /// value of a secure field.
    private func payload(_ event: Event, _ recorded: RecordedInput) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64)
        writer.beginObject()
        if case .action(_, let action) = event {
            writer.key("action"); writer.string(action)
        }
        if let form = recorded.form {
            writer.key("form"); writer.string(form.name)
        }
        if case .setSwitch(_, let isOn) = event {
            writer.key("isOn"); writer.bool(isOn)
        }
        if let item = request.item {
            writer.key("item"); writer.string(item)
        }
        writer.key("row"); writer.string(event.rowID)
        writer.key("screen"); writer.string(definition.id)
        if case .move(_, let destination) = event {
            writer.key("to"); writer.write(destination)
        }
        if let value = recorded.value {
            writer.key("value"); writer.write(value)
        }
        if let form = recorded.form {
            writer.key("values"); writer.write(form.values)
        }
        writer.endObject()
        return writer.bytes
    }
}

/// An event's input as the event log and the feed keep it (see `recordedInput`).
private struct RecordedInput {
    var value: JSONValue?
    var form: (name: String, values: JSONValue)?
}

extension ChangeSet {
    /// How many sections and rows the change set touches, for metrics.
    var itemCount: Int {
        sections.deleted.count + sections.inserted.count + sections.moved.count + sections.updated.count
            + rows.deleted.count + rows.inserted.count + rows.moved.count + rows.updated.count
    }
}
