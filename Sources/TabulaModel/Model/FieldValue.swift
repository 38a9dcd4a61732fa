/// The value of a row or header/footer field: the three types a custom kind may declare.
public enum FieldValue: Hashable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)

    /// The type's name as definitions spell it ("string", "number", "bool").
    public var typeName: String {
        switch self {
        case .string: "string"
        case .number: "number"
        case .bool: "bool"
        }
    }

    public var json: JSONValue {
        switch self {
        case .string(let value): .string(value)
        case .number(let value): .number(value)
        case .bool(let value): .bool(value)
        }
    }
}

extension JSONWriter {
    public mutating func write(_ value: FieldValue) {
        switch value {
        case .string(let text): string(text)
        case .number(let number): self.number(number)
        case .bool(let flag): bool(flag)
        }
    }
}
