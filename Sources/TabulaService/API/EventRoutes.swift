import TabulaPlatform
import HTTPTypes
import TabulaCore
import TabulaHTTP

/// `POST /v1/screens/{id}/selection`, `/switch` and `/deletion`.
extension APIContext {
    func handleEvent(_ kind: EventRequest.Kind, _ context: RouteContext, _ responder: Responder) {
        let definition: ScreenDefinition
        let token: String
        let request: EventRequest
        do throws(Problem) {
            definition = try self.definition(context.parameters["id"] ?? "")
            guard context.request.rawQuery.isEmpty else {
                throw Problem.invalidQuery("event routes take no query string; send everything in the JSON body")
            }
            try Self.requireJSON(context.request)
            guard let sessionToken = try sessionToken(context.request) else { throw Problem.missingSession }
            token = sessionToken
            request = try EventRequest.decode(context.request.body, kind: kind)
        } catch {
            metrics.recordEvent(kind: kind.rawValue, outcome: "rejected")
            return send(error.response(), context, responder)
        }
        if let copy = definitions.copy(request.definition, of: definition) {
            return applyEvent(request, kind, to: definition, from: copy, token: token, context, responder)
        }
        definitions.lookUp(request.definition ?? "", of: definition) { [self] copy in
            switch copy {
            case .failure(let error):
                metrics.recordEvent(kind: kind.rawValue, outcome: "rejected")
                send(Problem.storeUnavailable(error).response(), context, responder, token)
            case .success(let copy):
                applyEvent(request, kind, to: definition, from: copy, token: token, context, responder)
            }
        }
    }

    /// The event's transaction, once the definition of the client's copy is known.
    private func applyEvent(
        _ request: EventRequest, _ kind: EventRequest.Kind, to definition: ScreenDefinition, from copy: DefinitionArchive.Copy,
        token: String, _ context: RouteContext, _ responder: Responder
    ) {
        let session = SessionKey(token)
        let processor = EventProcessor(
            definition: definition, copy: copy, request: request, stateLimits: stateLimits, listMemos: listMemos,
            cachedScreen: { [cache] revision in cache.cached(session: session, screen: definition.id, revision: revision) })
        store.write(session: token, { processor.run(&$0) }) { [self] result in
            let outcome: EventOutcome
            switch result {
            case .failure(let error): outcome = .problem(.storeUnavailable(error))
            case .success(nil): outcome = .problem(.unknownSession)
            case .success(let value?): outcome = value
            }
            switch outcome {
            case .answer(let body, let changed, let changeCount, let newScreen):
                metrics.recordEvent(kind: kind.rawValue, outcome: changed ? "changed" : "unchanged", changeCount: changeCount)
                send(JSONResponse.make(.ok, body), context, responder, token)
                if changed { cache.remember(session: session, screen: newScreen) }
            case .replayed(let stored):
                metrics.recordEvent(kind: kind.rawValue, outcome: "replayed")
                send(JSONResponse.make(HTTPResponse.Status(code: stored.status), stored.body), context, responder, token)
            case .problem(let problem):
                metrics.recordEvent(kind: kind.rawValue, outcome: "rejected")
                send(problem.response(), context, responder, token)
            }
        }
    }

    /// Event bodies must be declared as JSON (parameters such as charset are fine).
    static func requireJSON(_ request: Request) throws(Problem) {
        let contentType = request.headers.value("Content-Type")
        guard let contentType, isJSONMediaType(contentType) else { throw Problem.unsupportedMediaType(contentType) }
    }

    /// `application/json`, in any case, with optional parameters such as `; charset=utf-8`.
    static func isJSONMediaType(_ value: String) -> Bool {
        let mediaType: StaticString = "application/json"
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        var value = value
        return value.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            let start = bytes.firstIndex { !isBlank($0) } ?? bytes.count
            let end = start + mediaType.utf8CodeUnitCount
            guard end <= bytes.count, ASCII.equalIgnoringCase(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), mediaType) else {
                return false
            }
            let rest = bytes[end...].drop(while: isBlank)
            return rest.isEmpty || rest.first == UInt8(ascii: ";")
        }
    }
}

/// What an event transaction decided.
enum EventOutcome: Sendable {
    /// The answer, and the screen at the new revision (kept for the next event).
    case answer(body: [UInt8], changed: Bool, changeCount: Int, newScreen: Screen)
    case replayed(StoredAnswer)
    case problem(Problem)
}

/// One event's trip through the pure core, run inside the session's write transaction:
/// replay a known event id, or rebuild the client's copy (its definition at its revision),
/// resolve the row in it, reduce the current state with the current definition, diff the
/// copy against the new screen, and commit.
struct EventProcessor: Sendable {
    /// The screen's current definition, which applies the event and renders the new screen.
    let definition: ScreenDefinition
    /// The definition that rendered the client's copy.
    let copy: DefinitionArchive.Copy
    let request: EventRequest
    let stateLimits: StateLimits
    /// Each thread's sizes of the lists it measured last.
    let listMemos: ShardedStorage<ListMemo>
    /// A screen already rendered at a revision, to skip rendering it again.
    let cachedScreen: @Sendable (Int) -> Screen?

    func run(_ writing: inout SessionWriting) -> EventOutcome {
        let time = writing.time
        let fingerprint = request.eventID == nil ? [] : request.fingerprint(screen: definition.id)
        if let id = request.eventID, let stored = writing.reading.storedAnswer(eventID: id) {
            return stored.fingerprint == fingerprint ? .replayed(stored) : .problem(.eventIDReused(id))
        }
        let current = writing.current
        let fromRevision = request.revision ?? current.revision
        let oldState: SessionState
        switch writing.reading.state(at: fromRevision) {
        case .found(let state): oldState = state
        case .future(let revision): return .problem(.futureRevision(fromRevision, current: revision))
        case .tooOld(let oldest): return .problem(.staleRevision(fromRevision, oldestKept: oldest, current: current.revision))
        }
        let copyDefinition: ScreenDefinition
        do throws(Problem) {
            copyDefinition = try copy.definition(current: definition)
        } catch {
            return .problem(error)
        }
        // The screen cache holds screens of the current definition only.
        let oldScreen = copyDefinition === definition
            ? cachedScreen(fromRevision) ?? render(definition, oldState) : render(copyDefinition, oldState)
        let rowID: String
        switch request.target {
        case .row(let id):
            rowID = id
        case .indexPath(let path):
            guard let row = oldScreen.row(at: path) else {
                return .problem(.unknownRow(
                    "the copy at revision \(fromRevision) has no row at indexPath [\(path.section), \(path.row)]; fetch the screen again"))
            }
            rowID = row.id
        }
        let event: Event
        switch request.kind {
        case .selection: event = .select(row: rowID)
        case .switch: event = .setSwitch(row: rowID, isOn: request.isOn ?? false)
        case .deletion: event = .delete(row: rowID)
        }
        let next: SessionState
        let effects: [Effect]
        do throws(EventError) {
            (next, effects) = try reduce(current, event, definition)
        } catch {
            return .problem(.eventNotApplicable(error))
        }
        if next.revision != current.revision, let violation = listMemos.writeOwn({ stateLimits.violation(of: next, reusing: &$0) }) {
            return .problem(.stateLimit(violation))
        }
        let newScreen = renderNew(next, current: current, oldState: oldState, oldScreen: oldScreen)
        let changes = diff(old: oldScreen, new: newScreen)
        let body = Self.answer(definition, from: fromRevision, to: next.revision, changes: changes, effects: effects)
        let changed = next.revision != current.revision
        if changed || request.eventID != nil {
            writing.commit(
                next, event: EventRecord(eventID: request.eventID, kind: request.kind.rawValue, payload: payload(event), revision: next.revision, time: time),
                answer: request.eventID.map { _ in StoredAnswer(fingerprint: fingerprint, status: 200, body: body, time: time) })
        }
        return .answer(body: body, changed: changed, changeCount: changes.itemCount, newScreen: newScreen)
    }

    /// The screen at the new state, reusing what an event does not touch: rendered from the
    /// screen at the current revision when one is at hand (`oldScreen` is, when the client's
    /// copy is current).
    private func renderNew(_ next: SessionState, current: SessionState, oldState: SessionState, oldScreen: Screen) -> Screen {
        guard oldScreen.definition == definition.definitionID else { return render(definition, next) }
        if next == oldState { return oldScreen }
        let currentScreen = oldState.revision == current.revision ? oldScreen : cachedScreen(current.revision)
        guard let currentScreen else { return render(definition, next) }
        return render(definition, next, reusing: currentScreen, renderedAt: current)
    }

    /// The event as applied (row by id, so the log replays without screens at old
    /// revisions): `{"isOn": BOOL?, "row": ID, "screen": ID}`.
    private func payload(_ event: Event) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64)
        writer.beginObject()
        if case .setSwitch(_, let isOn) = event {
            writer.key("isOn"); writer.bool(isOn)
        }
        writer.key("row"); writer.string(event.rowID)
        writer.key("screen"); writer.string(definition.id)
        writer.endObject()
        return writer.bytes
    }

    static func answer(_ definition: ScreenDefinition, from: Int, to: Int, changes: ChangeSet, effects: [Effect]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512)
        writer.beginObject()
        writer.key("changes"); writer.write(changes)
        writer.key("definition"); writer.string(definition.definitionID)
        writer.list(#""effects":[]"#, effects) { $0.write($1) }
        writer.key("fromRevision"); writer.int(from)
        writer.key("screen"); writer.string(definition.id)
        writer.key("toRevision"); writer.int(to)
        writer.endObject()
        return writer.bytes
    }
}

extension ChangeSet {
    /// How many sections and rows the change set touches, for metrics.
    var itemCount: Int {
        sections.deleted.count + sections.inserted.count + sections.moved.count + sections.updated.count
            + rows.deleted.count + rows.inserted.count + rows.moved.count + rows.updated.count
    }
}
