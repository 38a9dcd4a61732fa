import HTTPTypes
import TabulaCore
import TabulaHTTP

/// `PATCH /v1/sessions/{id}/state` (JSON Merge Patch or JSON Patch) and
/// `PUT /v1/sessions/{id}/state` (the whole state): the backend's writes, each a revision
/// like an event, under `If-Match` and an optional `Idempotency-Key`.
extension APIContext {
    static let stateRoute = "/v1/sessions/{id}/state"
    static let maxIdempotencyKeyLength = 200

    func writeState(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        try access.requireBackend(context.request)
        let id = try sessionID(context)
        let write = try stateWrite(context.request)
        return .later { [self] reply in
            runTransaction(write, session: .id(id)) { outcome in
                switch outcome {
                case .written(let body, let revision):
                    reply(Self.written(status: .ok, body, revision: revision))
                case .replayed(let stored):
                    // The stored answer's body is all that is kept: its toRevision gives the tag.
                    let revision = (try? JSONParser().parse(stored.body))?.objectValue?["toRevision"]?.intValue
                    reply(Self.written(status: HTTPResponse.Status(code: stored.status), stored.body, revision: revision))
                case .problem(let problem):
                    reply.fail(problem)
                }
            }
        }
    }

    /// A write's answer, tagged with the revision it left.
    private static func written(status: HTTPResponse.Status, _ body: [UInt8], revision: Int?) -> Response {
        var fields = JSONResponse.headers()
        if let revision { fields[.eTag] = "\"\(revision)\"" }
        return Response(status: status, headerFields: fields, body: body)
    }

    /// Reads a write's request: its patch by media type, `If-Match` (required) and
    /// `Idempotency-Key`.
    private func stateWrite(_ request: Request) throws(Problem) -> StateWrite {
        let contentType = request.headers.value("Content-Type")
        let kind: String
        if request.method == .put {
            guard let contentType, Self.isJSONMediaType(contentType) else { throw Problem.unsupportedMediaType(contentType) }
            kind = "state"
        } else if let contentType, Self.hasMediaType(contentType, "application/merge-patch+json") {
            kind = "merge-patch"
        } else if let contentType, Self.hasMediaType(contentType, "application/json-patch+json") {
            kind = "json-patch"
        } else {
            throw Problem.unsupportedPatchType(contentType)
        }
        let body = try JSONBody.value(request.body)
        let patch: StatePatch =
            switch kind {
            case "state": .replace(body)
            case "merge-patch": .merge(body)
            default: .operations(try JSONPatchOperation.document(body))
            }
        let ifMatch: String
        switch request.headers.single("If-Match") {
        case .absent: throw Problem.preconditionRequired
        case .repeated: throw Problem.invalidHeader("If-Match", "send one If-Match header with the session's revision, such as If-Match: \"3\"")
        case .one(let value): ifMatch = value
        }
        guard let condition = RevisionCondition(ifMatch: ifMatch) else {
            throw Problem.invalidHeader(
                "If-Match", "If-Match must be the session's revision as an entity tag, such as If-Match: \"3\" (the ETag of GET /v1/sessions/{id})")
        }
        var key: String?
        switch request.headers.single("Idempotency-Key") {
        case .absent: break
        case .repeated: throw Problem.invalidHeader("Idempotency-Key", "send one Idempotency-Key header")
        case .one(let value):
            guard !value.isEmpty, value.utf8.count <= Self.maxIdempotencyKeyLength, !value.hasASCIIControlCharacter else {
                throw Problem.invalidHeader(
                    "Idempotency-Key", "an Idempotency-Key is 1 to \(Self.maxIdempotencyKeyLength) bytes without control characters")
            }
            key = value
        }
        // The write, not its If-Match: a retry after re-reading the revision is the same
        // write, and gets the first answer.
        var print = JSONObject()
        print["kind"] = .string(kind)
        print["body"] = body
        return StateWrite(
            patch: patch, condition: condition, idempotencyKey: key, fingerprint: JSONValue.object(print).canonicalBytes,
            schema: served.catalogue.schema, stateLimits: stateLimits)
    }
}
