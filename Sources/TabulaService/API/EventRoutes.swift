import HTTPTypes
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// `POST /v1/screens/{id}/selection`, `/switch`, `/deletion`, `/edit`, `/move` and `/action`,
/// with `?item=ID` on an item screen.
extension APIContext {
    func answerEvent(_ kind: EventRequest.Kind, _ context: RouteContext) throws(Problem) -> RouteAnswer {
        let definition: ScreenDefinition
        let token: String
        let request: EventRequest
        do throws(Problem) {
            definition = try self.definition(context.parameters["id"] ?? "")
            guard context.request.rawQuery.allSatisfy({ $0.name == "item" }) else {
                throw Problem.invalidQuery(
                    "event routes take no query string but an item screen's ?item=ID; send everything else in the JSON body")
            }
            let item = try Self.itemQuery(context.request, for: definition)
            try Self.requireJSON(context.request)
            guard let sessionToken = try sessionToken(context.request) else { throw Problem.missingSession }
            token = sessionToken
            var decoded = try EventRequest.decode(context.request.body, kind: kind)
            decoded.item = item
            request = decoded
        } catch {
            metrics.recordEvent(kind: kind.rawValue, outcome: "rejected")
            throw error
        }
        return .later(session: token) { [self] reply in
            if let copy = definitions.copy(request.definition, of: definition) {
                return applyEvent(request, kind, to: definition, from: copy, token: token, reply)
            }
            definitions.lookUp(request.definition ?? "", of: definition) { [self] copy in
                switch copy {
                case .failure(let error):
                    metrics.recordEvent(kind: kind.rawValue, outcome: "rejected")
                    reply.fail(.store(error))
                case .success(let copy):
                    applyEvent(request, kind, to: definition, from: copy, token: token, reply)
                }
            }
        }
    }

    /// The event's transaction, once the definition of the client's copy is known.
    private func applyEvent(
        _ request: EventRequest, _ kind: EventRequest.Kind, to definition: ScreenDefinition, from copy: DefinitionArchive.Copy,
        token: String, _ reply: Reply
    ) {
        let session = SessionKey(token)
        let processor = EventProcessor(
            definition: definition, copy: copy, request: request, stateLimits: stateLimits, listMemos: listMemos,
            screenForDiff: { [cache] revision in cache.screenForDiff(session: session, definition, revision: revision, item: request.item) },
            urlSchemes: urlSchemes)
        runTransaction(processor, session: .token(token)) { [self] outcome in
            guard case .call(let needed) = outcome else { return answer(outcome, kind, session: session, reply) }
            askBackend(needed, processor, token: token, reply) { [self] in
                applyEvent(request, kind, to: definition, from: copy, token: token, reply)
            }
        }
    }

    /// An event that reached a `call`: asks the backend (once per event on this instance: a
    /// retry of the event while its call is in flight runs `again` once the call ended),
    /// then decides the event again with the answer, on the state the session has then.
    /// A failed call changes nothing.
    private func askBackend(_ needed: CallNeeded, _ processor: EventProcessor, token: String, _ reply: Reply, again: @escaping @Sendable () -> Void) {
        let kind = processor.request.kind
        let respond: @Sendable (EventOutcome) -> Void = { [self] outcome in answer(outcome, kind, session: SessionKey(token), reply) }
        guard let eventID = processor.request.eventID else { return call(needed, processor, token: token, finish: respond) }
        let inFlight = "\(token)\u{0}\(eventID)"
        guard actions.waitOrBegin(inFlight, then: again) else { return }
        let finish: @Sendable (EventOutcome) -> Void = { [self] outcome in
            respond(outcome)
            actions.end(inFlight)
        }
        // A call of the same event may have ended between this one's decision and its turn
        // here: then its answer is stored, and this retry replays it.
        readSession(.token(token), SessionRead(eventID: eventID), onProblem: { finish(.problem($0)) }) { [self] snapshot in
            guard snapshot.answer == nil else {
                actions.end(inFlight)
                return again()
            }
            call(needed, processor, token: token, finish: finish)
        }
    }

    /// Reads the session's subject, asks the backend, and decides the event again with its
    /// answer; `finish` gets the outcome.
    private func call(
        _ needed: CallNeeded, _ processor: EventProcessor, token: String, finish: @escaping @Sendable (EventOutcome) -> Void
    ) {
        store.sessionRecord(id: needed.sessionID) { [self] record in
            let subject: String?
            switch record {
            case .success(let record?): subject = record.subject
            case .success(nil): return finish(.problem(.unknownSession))
            case .failure(let error): return finish(.problem(.store(error)))
            }
            let call = BackendCall(
                pending: needed.pending, eventID: processor.request.eventID ?? "tabula-\(SessionID.make().dropFirst(2))",
                sessionID: needed.sessionID, subject: subject, revision: needed.revision, client: needed.client,
                screen: processor.definition.id, item: processor.request.item, row: needed.row)
            let served = self.served
            let reader = CallAnswerReader(
                schema: served.catalogue.schema, urlSchemes: urlSchemes, screen: { served.catalogue.screen(id: $0) })
            actions.call(call, reader: reader) { [self] result in
                switch result {
                case .failure(let problem):
                    finish(.problem(problem))
                case .success(let answer):
                    // An answered event never stops at its call again; `answer` says so if it did.
                    runTransaction(
                        processor.answered(BackendAnswer(action: call.action, revision: call.revision, answer: answer, screen: reader.screen)),
                        session: .token(token),
                        completion: finish)
                }
            }
        }
    }

    private func answer(_ outcome: EventOutcome, _ kind: EventRequest.Kind, session: SessionKey, _ reply: Reply) {
        switch outcome {
        case .answer(let answer):
            metrics.recordEvent(kind: kind.rawValue, outcome: answer.changed ? "changed" : "unchanged", changeCount: answer.changeCount)
            reply(JSONResponse.make(.ok, answer.body))
            if answer.changed { cache.keepForDiff(session: session, screen: answer.newScreen) }
        case .replayed(let stored):
            metrics.recordEvent(kind: kind.rawValue, outcome: "replayed")
            reply(JSONResponse.make(HTTPResponse.Status(code: stored.status), stored.body))
        case .problem(let problem):
            metrics.recordEvent(kind: kind.rawValue, outcome: "rejected")
            reply.fail(problem)
        case .call(let needed):
            metrics.recordEvent(kind: kind.rawValue, outcome: "rejected")
            reply.fail(.actionFailed(needed.pending.action, "the event reached the call again after its answer"))
        }
    }

    /// Event bodies must be declared as JSON (parameters such as charset are fine).
    static func requireJSON(_ request: Request) throws(Problem) {
        let contentType = request.headers.value("Content-Type")
        guard let contentType, isJSONMediaType(contentType) else { throw Problem.unsupportedMediaType(contentType) }
    }

    /// `application/json`, in any case, with optional parameters such as `; charset=utf-8`.
    static func isJSONMediaType(_ value: String) -> Bool {
        hasMediaType(value, "application/json")
    }

    /// Whether a Content-Type value is `mediaType` (in any case), with optional parameters.
    static func hasMediaType(_ value: String, _ mediaType: StaticString) -> Bool {
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
