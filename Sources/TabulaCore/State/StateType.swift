/// The type of a scalar: a state key, a record field or an expression's result.
public enum ScalarType: String, CaseIterable, Hashable, Sendable {
    case bool
    case number
    case string

    /// The value a key of this type has when nothing else is known.
    public var zero: FieldValue {
        switch self {
        case .bool: .bool(false)
        case .number: .number(0)
        case .string: .string("")
        }
    }
}

extension FieldValue {
    public var scalarType: ScalarType {
        switch self {
        case .bool: .bool
        case .number: .number
        case .string: .string
        }
    }
}

/// The fields of the records in a list, besides their string `id`.
public struct RecordSchema: Hashable, Sendable {
    public var fields: [String: ScalarType]

    public init(fields: [String: ScalarType] = [:]) {
        self.fields = fields
    }

    /// The type of `item.name`: `id` is always a string.
    public func type(of field: String) -> ScalarType? {
        field == "id" ? .string : fields[field]
    }
}

/// The type of a state key.
public enum StateType: Hashable, Sendable, CustomStringConvertible {
    case scalar(ScalarType)
    case list(RecordSchema)

    /// How a declaration names a list's type (`{"type": "list", ...}`); scalar types go by
    /// their ``ScalarType`` names.
    static let listTypeName = "list"
    /// Every type name a declaration may give.
    static let typeNames = ScalarType.allCases.map(\.rawValue) + [listTypeName]

    public var description: String {
        switch self {
        case .scalar(let type): type.rawValue
        case .list(let schema):
            schema.fields.isEmpty
                ? "list of records {id}"
                : "list of records {id, \(schema.fields.keys.sorted().map { "\($0): \(schema.fields[$0]?.rawValue ?? "")" }.joined(separator: ", "))}"
        }
    }
}

extension StateType {
    /// Whether a key of this type reads `value` as it is. A list admits any list: a record
    /// field that is missing or of another type reads as its type's zero.
    func admits(_ value: StateValue?) -> Bool {
        switch (self, value) {
        case (.scalar(let type), .scalar(let scalar)?): scalar.scalarType == type
        case (.list, .list?): true
        default: false
        }
    }
}

/// A declared state key: its type and its default value.
public struct StateDeclaration: Hashable, Sendable {
    public var type: StateType
    public var defaultValue: StateValue

    public init(type: StateType, defaultValue: StateValue) {
        self.type = type
        self.defaultValue = defaultValue
    }
}
