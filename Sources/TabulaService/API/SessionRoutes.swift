import HTTPTypes
import TabulaCore
import TabulaHTTP

/// `POST /v1/sessions` (a client's, or a backend's with the user's data), and the backend's
/// `GET` and `DELETE /v1/sessions/{id}`. A new session without a locale takes the one of the
/// catalogue's string tables that its `Accept-Language` prefers, if any.
extension APIContext {
    static let sessionRoute = "/v1/sessions/{id}"

    func createSession(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        // A body is JSON, as every body Tabula reads; none at all is a session with defaults.
        if !context.request.body.isEmpty { try Self.requireJSON(context.request) }
        let request = try NewSessionRequest.decode(context.request.body, limits: clients)
        var state = served.catalogue.initialState
        if let client = request.client { state.client = client }
        if request.needsBackendKey {
            try access.requireBackend(context.request)
            try request.checkSubject()
            if let json = request.state { state = try initialState(json, client: state.client) }
        } else if !access.carriesBackendKey(context.request) {
            // The backend creates sessions for its users from one address: only clients'
            // own sessions count against their address.
            do throws(Problem) {
                try clients.admitNewSession(context.request)
            } catch {
                // Over the limit, the backend's key is the difference between 201 and 429:
                // a request that presents another key waits the refused key's pause, so that
                // guessing the backend key here is no faster than anywhere else. (With an API
                // key, a request here presents that one: any other was refused, after the
                // pause, before routing.)
                guard access.apiKey == nil, context.request.headers.single("Authorization") != .absent else { throw error }
                return .later { [access] reply in access.refusalPause.answer { reply.fail(error) } }
            }
        }
        state.client.locale = state.client.locale ?? negotiatedLocale(context.request)
        let new = NewSession(token: SessionToken.make(), id: SessionID.make(), subject: request.subject, state: state)
        return .later(session: new.token) { [self] reply in createSession(new, reply) }
    }

    private func createSession(_ new: NewSession, _ reply: Reply) {
        store.createSession(new) { [self] result in
            switch result {
            case .failure(let error):
                reply.fail(.store(error))
            case .success:
                streams.feedChanged()
                var writer = JSONWriter()
                writer.beginObject()
                writer.key("client"); writer.rawValue(new.state.client.json.canonicalBytes)
                writer.key("id"); writer.string(new.id)
                writer.key("revision"); writer.int(0)
                writer.key("session"); writer.string(new.token)
                writer.endObject()
                var fields = JSONResponse.headers()
                fields[.location] = "/v1/sessions/\(new.id)"
                reply(Response(status: .created, headerFields: fields, body: writer.bytes))
            }
        }
    }

    /// The state a backend gives a new session: its members checked against the catalogue's
    /// schema (paths in problems are the body's), the others at their defaults, within the
    /// state limits.
    private func initialState(_ json: JSONValue, client: ClientContext) throws(Problem) -> SessionState {
        var state: SessionState
        do throws(StateDecodingError) {
            state = try served.catalogue.schema.state(from: json)
            state.client = client
        } catch {
            throw Problem.invalidState(error, under: "$.state")
        }
        if let violation = stateLimits.violation(of: state) { throw Problem.stateLimit(violation, cause: "this state") }
        return state
    }

    static let clientRoute = "/v1/session/client"

    /// The locale of the catalogue's string tables that a request's `Accept-Language`
    /// prefers, for a client context that names none; `nil` for none (the default locale).
    private func negotiatedLocale(_ request: Request) -> String? {
        guard let strings = served.catalogue.strings else { return nil }
        return strings.negotiate(acceptLanguage: request.headerFields[values: .acceptLanguage].joined(separator: ","))
    }

    /// `PUT /v1/session/client` with `X-Session`: the client replaces its context (its
    /// language and the kinds it draws; without a locale, `Accept-Language` chooses, as for
    /// a new session); 200 `{"client", "fromRevision", "toRevision"}`.
    func putClient(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        try Self.requireJSON(context.request)
        guard let token = try sessionToken(context.request) else { throw Problem.missingSession }
        var client = try ClientRequest.decode(try JSONBody.value(context.request.body), at: "the body", limits: clients)
        client.locale = client.locale ?? negotiatedLocale(context.request)
        return .later(session: token) { [self, client] reply in
            runTransaction(ClientWrite(client: client), session: .token(token)) { outcome in
                switch outcome {
                case .written(let body): reply(JSONResponse.make(.ok, body))
                case .problem(let problem): reply.fail(problem)
                }
            }
        }
    }

    /// `GET /v1/sessions/{id}`: the session as the backend sees it, tagged with its revision.
    func getSession(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        try answerBackend(context, { [store] id, completion in store.sessionRecord(id: id, completion: completion) }) { record in
            let tag = "\"\(record.state.revision)\""
            if let tags = context.request.headers.value("If-None-Match"), ETag.matches(tags, tag) {
                return Response(status: .notModified, headerFields: [.eTag: tag, .cacheControl: "no-store"])
            }
            var fields = JSONResponse.headers()
            fields[.eTag] = tag
            return Response(status: .ok, headerFields: fields, body: Self.encode(record))
        }
    }

    /// `{"createdAt", "id", "lastUsedAt", "revision", "state", "subject"}`.
    static func encode(_ record: SessionRecord) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256)
        writer.beginObject()
        writer.key("createdAt"); writer.string(RFC3339.text(record.createdAt))
        writer.key("id"); writer.string(record.id)
        writer.key("lastUsedAt"); writer.string(RFC3339.text(record.lastUsedAt))
        writer.key("revision"); writer.int(record.state.revision)
        // The form marks and the client context are the service's (stored beside the values
        // under `$` keys, which no state key may have): a backend reads and writes values,
        // and a state it sends back as it read it must be one a `PUT` takes.
        var state = record.state
        state.marks = FormMarks()
        state.client = .unspecified
        writer.key("state"); writer.rawValue(state.valuesBytes)
        writer.key("subject")
        if let subject = record.subject { writer.string(subject) } else { writer.null() }
        writer.endObject()
        return writer.bytes
    }

    /// `DELETE /v1/sessions/{id}`: 204; the token is unknown from then on.
    func deleteSession(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        let delete: @Sendable (String, @escaping @Sendable (Result<Void?, StoreError>) -> Void) -> Void = { [store, streams] id, completion in
            store.deleteSession(id: id) { result in
                if case .success(true) = result { streams.removed(id: id) }
                completion(result.map { $0 ? () : nil })
            }
        }
        return try answerBackend(context, delete) { _ in Response(status: .noContent, headerFields: [.cacheControl: "no-store"]) }
    }

    /// A backend route on one session: checks the backend key and the id, asks the store
    /// with `call`, and answers what it found with `answer`; a session it did not find is
    /// 404, a store it could not reach 503.
    private func answerBackend<Found: Sendable>(
        _ context: RouteContext, _ call: @escaping @Sendable (String, @escaping @Sendable (Result<Found?, StoreError>) -> Void) -> Void,
        answer: @escaping @Sendable (Found) -> Response
    ) throws(Problem) -> RouteAnswer {
        try access.requireBackend(context.request)
        let id = try sessionID(context)
        return .later { reply in
            call(id) { result in
                switch result {
                case .failure(let error): reply.fail(.store(error))
                case .success(nil): reply.fail(.unknownSessionID(id))
                case .success(let found?): reply(answer(found))
                }
            }
        }
    }

    /// The `{id}` of a backend route; an id of another shape names no session (404).
    func sessionID(_ context: RouteContext) throws(Problem) -> String {
        let id = context.parameters["id"] ?? ""
        guard SessionID.isWellFormed(id) else { throw Problem.unknownSessionID(id) }
        return id
    }
}
