import TabulaModel

/// A change of the copy the service sent (an event's answer, a `changes` answer or a stream's
/// `changes` event): the change set from `fromRevision` to `toRevision`, rendered by
/// `definition`.
struct CopyUpdate: Sendable {
    var fromRevision: Int
    var toRevision: Int
    var definition: String
    var changes: ChangeSet

    init(json: JSONValue) throws(ClientError) {
        guard let object = json.objectValue, let from = object["fromRevision"]?.intValue, let to = object["toRevision"]?.intValue,
            let definition = object["definition"]?.stringValue, let changes = object["changes"]
        else { throw ClientError.malformedAnswer("an update lacks fromRevision, toRevision, definition or changes") }
        // Revisions only go up: an update that would take a copy backwards is not one.
        guard from >= 0, to >= from else { throw ClientError.malformedAnswer("an update goes from revision \(from) to \(to)") }
        fromRevision = from
        toRevision = to
        self.definition = definition
        do {
            self.changes = try ChangeSet(json: changes)
        } catch {
            throw ClientError.malformedAnswer("an update's change set does not decode: \(error)")
        }
    }
}

/// What the client should do after an event, as its answer says.
public enum ScreenEffect: Hashable, Sendable {
    /// Show another screen (an item screen when `item` is given).
    case navigate(screen: String, item: String?)
    /// Return to the screen the user came from.
    case back
    /// Open a URL.
    case openURL(String)

    init?(json: JSONValue) {
        guard let object = json.objectValue else { return nil }
        switch object["type"]?.stringValue {
        case "navigate":
            guard let screen = object["screen"]?.stringValue else { return nil }
            self = .navigate(screen: screen, item: object["item"]?.stringValue)
        case "back": self = .back
        case "openURL":
            guard let url = object["url"]?.stringValue else { return nil }
            self = .openURL(url)
        default: return nil
        }
    }
}

/// An event's answer: the update of the copy, the effects, and the outcome of a submit.
struct EventAnswer: Sendable {
    var update: CopyUpdate
    var effects: [ScreenEffect]
    var submitted: SubmitOutcome?

    init(json: JSONValue) throws(ClientError) {
        update = try CopyUpdate(json: json)
        effects = (json.objectValue?["effects"]?.arrayValue ?? []).compactMap(ScreenEffect.init(json:))
        if let submit = json.objectValue?["submit"]?.objectValue, let form = submit["form"]?.stringValue,
            let valid = submit["valid"]?.boolValue
        {
            submitted = SubmitOutcome(form: form, valid: valid)
        }
    }
}

/// A submit's outcome: whether the form's rows passed their rules and the backend accepted it.
public struct SubmitOutcome: Hashable, Sendable {
    public var form: String
    public var valid: Bool
}

/// A problem document (RFC 9457) the service answered with.
public struct ServiceProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public var status: Int
    /// The last part of its `type`, `urn:tabula:problem:SLUG`: `unknown-definition`, `gone`…
    public var slug: String
    public var title: String
    public var detail: String
    /// Whether the answer was the service's own problem document (a JSON object whose
    /// `type` is `urn:tabula:problem:…`); a proxy's or a portal's page is not, nor is a
    /// gateway's own problem document (`about:blank`, or its own URL).
    var isDocument: Bool

    init(status: Int, slug: String, title: String, detail: String) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        isDocument = true
    }

    init(answer: HTTPAnswer) {
        status = answer.status
        let object = (try? JSONParser().parse(answer.body))?.objectValue
        let type = object?["type"]?.stringValue ?? ""
        isDocument = type.hasPrefix(Self.typePrefix)
        slug = isDocument ? String(type.dropFirst(Self.typePrefix.count)) : type
        title = object?["title"]?.stringValue ?? "HTTP \(answer.status)"
        detail = object?["detail"]?.stringValue ?? ""
    }

    /// What every `type` of the service's problems starts with.
    static let typePrefix = "urn:tabula:problem:"

    public var description: String { detail.isEmpty ? "\(status) \(slug)" : "\(status) \(slug): \(detail)" }

    /// Whether the service refused the API key (`401 unauthorized`: missing or wrong), not
    /// the session: the session may be fine, and asking again without another key cannot help.
    public var refusesTheAPIKey: Bool { status == 401 && slug == "unauthorized" }

    /// Why the answer was no use, for ``ScreenHandle/Connection/retrying(reason:)``: the
    /// service's problem, or the status of a page that is not the service's.
    var reason: String { isDocument ? description : "HTTP \(status) without the service's problem document: not its answer" }
}

/// What can go wrong when the client talks to the service.
public enum ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The service could not be reached, or the connection was cut.
    case transport(String)
    /// The service refused the request.
    case problem(ServiceProblem)
    /// An answer the client cannot read: not the wire model it expects.
    case malformedAnswer(String)

    public var description: String {
        switch self {
        case .transport(let message): "cannot reach the service: \(message)"
        case .problem(let problem): "the service refused the request: \(problem)"
        case .malformedAnswer(let message): "the service's answer cannot be read: \(message)"
        }
    }
}

extension JSONValue {
    /// Parses an answer's body.
    static func answer(_ bytes: [UInt8]) throws(ClientError) -> JSONValue {
        do {
            return try JSONParser().parse(bytes)
        } catch {
            throw ClientError.malformedAnswer("\(error)")
        }
    }
}
