import TabulaCore

/// The body of `POST /v1/screens/{id}/selection`, `/switch`, `/deletion`, `/edit`, `/move`
/// or `/action`.
struct EventRequest: Sendable, Equatable {
    static func == (lhs: EventRequest, rhs: EventRequest) -> Bool {
        lhs.kind == rhs.kind && lhs.target == rhs.target && lhs.isOn == rhs.isOn && lhs.value == rhs.value
            && lhs.destination == rhs.destination && lhs.action == rhs.action && lhs.item == rhs.item
            && lhs.values.elementsEqual(rhs.values) { $0.row == $1.row && $0.value == $1.value } && lhs.revision == rhs.revision
            && lhs.definition == rhs.definition && lhs.eventID == rhs.eventID
    }

    enum Kind: String, Sendable {
        case selection, `switch`, deletion, edit, move, action
    }

    enum Target: Sendable, Equatable {
        case row(String)
        case indexPath(RowPath)
    }

    var kind: Kind
    var target: Target
    var isOn: Bool?
    /// An edit's value, as sent (its fit to the row is checked when the row is known).
    var value: JSONValue?
    /// A move's destination: the row's index path in the client's copy after the drop.
    var destination: RowPath?
    /// An action event's swipe action id.
    var action: String?
    /// On an item screen, the item it shows: the route's `?item=`, not part of the body.
    var item: String?
    /// A selection's values for the rows of the form its submit names, in written order.
    var values: [(row: String, value: JSONValue)] = []
    var revision: Int?
    /// The id of the definition that rendered the client's copy.
    var definition: String?
    var eventID: String?

    private static let switchFields = ["row", "indexPath", "isOn", "revision", "definition", "eventId"]
    private static let editFields = ["row", "indexPath", "value", "revision", "definition", "eventId"]
    private static let selectionFields = ["row", "indexPath", "values", "revision", "definition", "eventId"]
    private static let moveFields = ["row", "indexPath", "to", "revision", "definition", "eventId"]
    private static let actionFields = ["row", "indexPath", "action", "revision", "definition", "eventId"]
    private static let otherFields = ["row", "indexPath", "revision", "definition", "eventId"]
    static let maxActionIDLength = 200

    static let maxEventIDLength = 200
    static let maxDefinitionLength = 200
    static let maxRowIDLength = 1024

    /// Decodes and checks a body; every problem is a 400 that says which field to fix.
    static func decode(_ body: [UInt8], kind: Kind) throws(Problem) -> EventRequest {
        // The usual body is a flat object, read without building a JSONObject; anything
        // else goes to the full parser, whose errors are exact.
        if let members = FlatJSONObject.members(of: body) {
            return try decode(members: members, kind: kind)
        }
        return try decode(members: JSONBody.members(body), kind: kind)
    }

    /// Checks the members of the body's object, in written order.
    private static func decode(members: [(key: String, value: JSONValue)], kind: Kind) throws(Problem) -> EventRequest {
        func member(_ name: String) -> JSONValue? {
            members.first { $0.key == name }?.value
        }
        let allowed =
            switch kind {
            case .switch: Self.switchFields
            case .edit: Self.editFields
            case .selection: Self.selectionFields
            case .deletion: Self.otherFields
            case .move: Self.moveFields
            case .action: Self.actionFields
            }
        if let unknown = members.first(where: { !allowed.contains($0.key) })?.key {
            let hint =
                switch unknown {
                case "isOn": "; only switch events carry isOn"
                case "value": "; only edit events carry value"
                case "values": "; only selection events carry values (for the form their submit names)"
                case "to": "; only move events carry to"
                case "action": "; only action events carry action"
                default: ""
                }
            throw Problem.invalidBody("unknown field \"\(unknown.clippedForDetail)\"\(hint); a \(kind.rawValue) event has \(allowed.joined(separator: ", "))")
        }
        let target: Target
        switch (member("row"), member("indexPath")) {
        case (.some(let row), nil):
            guard case .string(let id) = row, !id.isEmpty, id.utf8.count <= maxRowIDLength else {
                throw Problem.invalidBody("\"row\" must be a row id: a non-empty string of at most \(maxRowIDLength) bytes")
            }
            target = .row(id)
        case (nil, .some(let indexPath)):
            target = .indexPath(try Self.indexPath(indexPath))
        case (.some, .some):
            throw Problem.invalidBody("send either \"row\" or \"indexPath\", not both")
        case (nil, nil):
            throw Problem.invalidBody("say which row: send \"row\" (its id) or \"indexPath\" ({\"section\": S, \"row\": R})")
        }
        var request = EventRequest(kind: kind, target: target)
        if kind == .switch {
            guard let value = member("isOn") else { throw Problem.invalidBody("a switch event needs \"isOn\": true or false") }
            guard case .bool(let isOn) = value else { throw Problem.invalidBody("\"isOn\" must be true or false, not \(value.typeName)") }
            request.isOn = isOn
        }
        if kind == .edit {
            guard let value = member("value") else {
                throw Problem.invalidBody("an edit event needs \"value\": the row's new value (a string, a number, or null to clear a choice or a date)")
            }
            request.value = value
        }
        if kind == .move {
            guard let value = member("to") else {
                throw Problem.invalidBody("a move event needs \"to\": the row's index path {\"section\": S, \"row\": R} in the client's copy after the drop")
            }
            request.destination = try Self.indexPath(value, name: "to")
        }
        if kind == .action {
            guard let value = member("action") else {
                throw Problem.invalidBody("an action event needs \"action\": the id of one of the row's leadingActions or trailingActions")
            }
            guard case .string(let id) = value, !id.isEmpty, id.utf8.count <= maxActionIDLength else {
                throw Problem.invalidBody("\"action\" must be a swipe action's id: a non-empty string of at most \(maxActionIDLength) bytes")
            }
            request.action = id
        }
        if let values = member("values") {
            guard case .object(let object) = values else {
                throw Problem.invalidBody("\"values\" must be an object of row ids and their values, like {\"email\": \"ann@example.com\"}")
            }
            request.values = object.pairs.map { (row: $0.key, value: $0.value) }
        }
        if let value = member("revision") {
            guard case .number(let number) = value, let revision = Int(exactly: number), revision >= 0 else {
                throw Problem.invalidBody("\"revision\" must be a whole number of at least 0 (the revision the client shows)")
            }
            request.revision = revision
        }
        if let value = member("definition") {
            guard case .string(let id) = value, !id.isEmpty, id.utf8.count <= maxDefinitionLength else {
                throw Problem.invalidBody("\"definition\" must be the \"definition\" of the screen the client shows: a non-empty string")
            }
            request.definition = id
        }
        if let value = member("eventId") {
            // No control characters: the answers of backend writes are kept beside the
            // answers of events, under keys that start with one (`StateWrite.answerID`).
            guard case .string(let id) = value, !id.isEmpty, id.utf8.count <= maxEventIDLength,
                !id.hasASCIIControlCharacter
            else {
                throw Problem.invalidBody("\"eventId\" must be a non-empty string of at most \(maxEventIDLength) bytes, without control characters")
            }
            request.eventID = id
        }
        if case .indexPath = target, request.revision == nil || request.definition == nil {
            throw Problem.invalidBody(
                "an \"indexPath\" is resolved against the copy of the screen the client shows, so send that copy's \"revision\" and \"definition\" too")
        }
        return request
    }

    private static func indexPath(_ value: JSONValue, name: String = "indexPath") throws(Problem) -> RowPath {
        guard case .object(let object) = value, Set(object.keys) == ["section", "row"],
            case .number(let section)? = object["section"], case .number(let row)? = object["row"],
            let sectionIndex = Int(exactly: section), let rowIndex = Int(exactly: row), sectionIndex >= 0, rowIndex >= 0
        else {
            throw Problem.invalidBody("\"\(name)\" must be {\"section\": S, \"row\": R} with whole numbers of at least 0")
        }
        return RowPath(section: sectionIndex, row: rowIndex)
    }

    /// Identifies the request for idempotency: the same id with another event is an error.
    /// An edit's value is left out when it may be a secure field's (`valueMayBeSecret`):
    /// the fingerprint is stored with the answer, and a secure value is never stored.
    func fingerprint(screen: String, valueMayBeSecret: Bool = false, isSecret: (String) -> Bool = { _ in false }) -> [UInt8] {
        var object = JSONObject()
        object["screen"] = .string(screen)
        if let item { object["item"] = .string(item) }
        object["kind"] = .string(kind.rawValue)
        switch target {
        case .row(let id): object["row"] = .string(id)
        case .indexPath(let path): object["indexPath"] = ["section": .number(Double(path.section)), "row": .number(Double(path.row))]
        }
        if let isOn { object["isOn"] = .bool(isOn) }
        if let destination { object["to"] = ["section": .number(Double(destination.section)), "row": .number(Double(destination.row))] }
        if let action { object["action"] = .string(action) }
        if let value, !valueMayBeSecret { object["value"] = value }
        if !values.isEmpty {
            var shown = JSONObject()
            for (row, value) in values { shown[row] = isSecret(row) ? .null : value }
            object["values"] = .object(shown)
        }
        if let revision { object["revision"] = .number(Double(revision)) }
        if let definition { object["definition"] = .string(definition) }
        return JSONValue.object(object).canonicalBytes
    }
}
