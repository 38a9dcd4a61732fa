/// One record of a list in session state: a unique string `id` and scalar fields.
public struct Record: Hashable, Sendable {
    public var id: String
    public var fields: [String: FieldValue]

    public init(id: String, fields: [String: FieldValue] = [:]) {
        self.id = id
        self.fields = fields
    }

    /// The value of `item.name`; `id` included.
    public func value(of field: String) -> FieldValue? {
        field == "id" ? .string(id) : fields[field]
    }
}

/// The value of a state key.
public enum StateValue: Hashable, Sendable {
    case scalar(FieldValue)
    case list([Record])

    public var scalar: FieldValue? {
        if case .scalar(let value) = self { return value }
        return nil
    }

    public var records: [Record]? {
        if case .list(let records) = self { return records }
        return nil
    }

    /// Whether a key's value differs between two states, `nil` standing for an absent key.
    /// An unchanged list costs nothing to compare: an event that did not touch it leaves it
    /// in the storage the other state has, and array equality looks at that first.
    public static func differ(_ first: StateValue?, _ second: StateValue?) -> Bool {
        first != second
    }

    public var json: JSONValue {
        switch self {
        case .scalar(let value): value.json
        case .list(let records):
            .array(
                records.map { record in
                    var object = JSONObject()
                    object["id"] = .string(record.id)
                    for (name, value) in record.fields { object[name] = value.json }
                    return .object(object)
                })
        }
    }
}

extension Record {
    /// The longest item id, in UTF-8 bytes: the most an item screen's `?item=` names.
    public static let maxIDBytes = 1024

    /// Why `id` cannot name an item, or `nil`: longer than ``maxIDBytes``, or starting or
    /// ending with a character that fuses with its neighbour, which would make the ids of
    /// the rows built around it run together. The one judge of an id that enters a list:
    /// added by an event, written by a backend, or a definition's default (ids already
    /// stored are read as they are).
    public static func problem(ofID id: String) -> String? {
        if id.utf8.count > maxIDBytes { return "the id is longer than \(maxIDBytes) bytes, the most an item screen's ?item= names" }
        if !TextJoin.isSealedItemID(id) {
            return "the id starts or ends with a character that fuses with its neighbour (such as a combining mark)"
        }
        return nil
    }
}
