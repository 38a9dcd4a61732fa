import HTTPTypes
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// `GET /v1/screens/{id}/stream`: the session's screen as Server-Sent Events. It opens
/// with the reconnect delay and the event that takes the client's copy to the current
/// screen (the whole screen, a change set from the copy it names, or nothing when it is
/// current); then one `changes` event after each commit that changes the screen, and
/// `gone` when the session ends. Every problem is answered before the stream starts.
extension APIContext {
    static let screenStreamRoute = "/v1/screens/{id}/stream"

    /// The copy a reconnecting client names: `Last-Event-ID: DEFINITION:REVISION`, or on a
    /// first connection `?since=REVISION&definition=ID` (EventSource keeps the URL it
    /// started with, so the header, which it updates, wins).
    struct StreamResume {
        let definitionID: String?
        let revision: Int
    }

    func openScreenStream(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        let definition = try self.definition(context.parameters["id"] ?? "")
        let item = try Self.itemQuery(context.request, for: definition)
        let token = try streamToken(context.request)
        let resume = try Self.streamResume(context.request)
        try streams.requireRoom()
        let read = SessionRead(revision: resume?.revision, id: true)
        return .later(session: token) { [self] reply in
            readSession(.token(token), read, onProblem: reply.fail) { [self] snapshot in
                let copyDefinition = resume.map { $0.definitionID ?? definition.definitionID }
                do throws(Problem) {
                    try Self.requireItem(item, definition, in: snapshot.current)
                } catch {
                    return reply.fail(error)
                }
                if let copy = definitions.copy(copyDefinition, of: definition) {
                    return startStream(definition, item: item, token: token, snapshot, resume: resume, clientCopy: copy, reply)
                }
                definitions.lookUp(copyDefinition ?? "", of: definition) { [self] result in
                    // A definition the store cannot read now is one the client gets the whole screen for.
                    let copy = (try? result.get()) ?? .unknown(copyDefinition ?? "")
                    startStream(definition, item: item, token: token, snapshot, resume: resume, clientCopy: copy, reply)
                }
            }
        }
    }

    /// Registers the stream and answers with it. `clientCopy` is the definition of the
    /// copy `resume` names.
    private func startStream(
        _ definition: ScreenDefinition, item: String?, token: String, _ snapshot: SessionSnapshot, resume: StreamResume?,
        clientCopy: DefinitionArchive.Copy, _ reply: Reply
    ) {
        guard let id = snapshot.id else { return reply.fail(.store(StoreError("the store did not read the session's id"))) }
        let key = SessionKey(token)
        let current = cache.renderedScreen(session: key, definition, snapshot.current, item: item)
        let target = ScreenCopy(definitionID: definition.definitionID, revision: snapshot.current.revision, screen: current.screen)
        let stream = ScreenStream(definition: definition, item: item, session: key, tick: streams.currentTick)
        do throws(Problem) {
            try streams.register(stream, sessionID: id)
        } catch {
            return reply.fail(error)
        }
        var opening = EventStreamFrames.opening
        var copy = target
        if resume != nil, case .found(let past) = snapshot.past, let old = try? clientCopy.definition(current: definition) {
            let changes = diff(old: render(old, past, item: item), new: current.screen)
            if changes.isEmpty {
                copy = ScreenCopy(definitionID: old.definitionID, revision: past.revision, screen: current.screen)
            } else {
                opening += EventStreamFrames.event(
                    "changes", id: target.eventID,
                    data: AnswerBody.encode(definition, item: item, from: past.revision, to: target.revision, changes: changes))
            }
        } else {
            opening += EventStreamFrames.event("screen", id: target.eventID, data: current.bytes)
        }
        let server = ServerStream(source: stream)
        stream.start(opening: opening, copy: copy, current: target, server: server) { [streams] in streams.unregister($0) }
        reply(Response(status: .ok, headerFields: Self.streamHeaders, stream: server))
        // A commit between the read and the registration found no stream to bring forward.
        streams.recheck(id: id)
    }

    static let streamHeaders: HTTPFields = {
        var fields: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        // nginx would otherwise buffer the stream, and hold each event back.
        if let accelBuffering = HTTPField.Name("X-Accel-Buffering") { fields[accelBuffering] = "no" }
        return fields
    }()

    /// A stream's session token: the X-Session header, or `?session=` (a browser's
    /// EventSource cannot send headers). The access log shows neither: it logs the path
    /// without its query, and a token's first characters only.
    func streamToken(_ request: Request) throws(Problem) -> String {
        if let token = try sessionToken(request) { return token }
        switch try Self.queryParameter("session", of: request) {
        case .absent: throw Problem.missingStreamSession
        case .present(let token?) where SessionToken.isWellFormed(token): return token
        case .present, .malformed: throw Problem.unknownSession
        }
    }

    static func streamResume(_ request: Request) throws(Problem) -> StreamResume? {
        if let lastEventID = request.headers.value("Last-Event-ID") {
            // An id this service did not give (another service's, or cut short) names no copy:
            // the stream starts with the whole screen.
            guard let colon = lastEventID.lastIndex(of: ":"), let revision = wholeNumber(String(lastEventID[lastEventID.index(after: colon)...])),
                colon > lastEventID.startIndex
            else { return StreamResume(definitionID: "", revision: 0) }
            return StreamResume(definitionID: String(lastEventID[..<colon]), revision: revision)
        }
        guard try queryParameter("since", of: request) != .absent else {
            if try queryParameter("definition", of: request) != .absent {
                throw Problem.invalidQuery("definition names the copy given by since; add ?since=REVISION")
            }
            return nil
        }
        return StreamResume(definitionID: try definitionQuery(request), revision: try since(request))
    }
}
