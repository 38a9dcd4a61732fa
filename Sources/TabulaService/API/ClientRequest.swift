import TabulaCore

/// A client context as a request gives it: `{"locale": BCP-47-TAG?, "kinds": [KIND]?}`, in
/// `POST /v1/sessions` (as `client`) and `PUT /v1/session/client`. Problems are 400s that
/// say which member to fix.
enum ClientRequest {
    static let members = ["kinds", "locale"]
    static let maxKindBytes = 64

    /// Reads a context; more kinds than `limits` allow is a 400 that the limits count.
    static func decode(_ json: JSONValue, at path: String, limits: ClientLimits) throws(Problem) -> ClientContext {
        guard case .object(let object) = json else {
            throw Problem.invalidBody("\(path) must be an object such as {\"locale\": \"fr-CH\", \"kinds\": [\"basic\", \"subtitle\"]}, not \(json.typeName)")
        }
        var client = ClientContext()
        for (key, value) in object.pairs {
            switch key {
            case "locale":
                guard case .string(let tag) = value, let locale = LanguageTag.canonical(tag) else {
                    throw Problem.invalidBody("\(path).locale must be a BCP 47 language tag such as \"fr\" or \"pt-BR\"")
                }
                client.locale = locale
            case "kinds":
                guard case .array(let names) = value else {
                    throw Problem.invalidBody("\(path).kinds must be an array of the row kind names the client draws")
                }
                guard names.count <= limits.maxClientKinds else {
                    limits.limitCounts.add(.clientKinds)
                    throw Problem.invalidBody(
                        "\(path).kinds lists \(names.count) kinds; a client context lists at most \(limits.maxClientKinds) (--max-client-kinds), the kinds the client draws"
                    )
                }
                var kinds: Set<String> = []
                for name in names {
                    guard case .string(let kind) = name, !kind.isEmpty, kind.utf8.count <= maxKindBytes,
                        kind.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
                    else {
                        // A name too long is the size limit taking effect, as too many names are.
                        if case .string(let kind) = name, kind.utf8.count > maxKindBytes { limits.limitCounts.add(.clientKinds) }
                        throw Problem.invalidBody("\(path).kinds must hold kind names: 1 to \(maxKindBytes) printable ASCII characters each")
                    }
                    kinds.insert(kind)
                }
                // An empty list lists none, as a context without the member does: every kind
                // as it is (not "draws nothing", which would leave every row out).
                client.kinds = kinds.isEmpty ? nil : kinds
            default:
                throw Problem.invalidBody("unknown field \"\(key.clippedForDetail)\" in \(path); a client context takes \(members.joined(separator: ", "))")
            }
        }
        return client
    }
}

/// `PUT /v1/session/client`: a client replaces its context. A new context is a revision
/// like any other (every screen renders for it, and streams get their change sets); the same
/// context again changes nothing.
struct ClientWrite: SessionDecision {
    let client: ClientContext

    var read: SessionRead { SessionRead() }

    static func refused(_ problem: Problem) -> ClientWriteOutcome { .problem(problem) }

    func decide(_ snapshot: SessionSnapshot) -> (outcome: ClientWriteOutcome, commit: SessionCommit?) {
        let current = snapshot.current
        var next = current
        next.client = client
        let changed = next.client != current.client
        if changed { next.revision += 1 }
        var writer = JSONWriter(reservingCapacity: 96)
        writer.beginObject()
        writer.key("client"); writer.rawValue(client.json.canonicalBytes)
        writer.key("fromRevision"); writer.int(current.revision)
        writer.key("toRevision"); writer.int(next.revision)
        writer.endObject()
        let body = writer.bytes
        guard changed else { return (.written(body: body), nil) }
        let commit = SessionCommit(
            expectedRevision: current.revision, change: (next, .client),
            event: EventRecord(eventID: nil, kind: "client", payload: client.json.canonicalBytes, revision: next.revision, time: snapshot.time),
            answer: nil)
        return (.written(body: body), commit)
    }
}

enum ClientWriteOutcome: Sendable {
    case written(body: [UInt8])
    case problem(Problem)
}
