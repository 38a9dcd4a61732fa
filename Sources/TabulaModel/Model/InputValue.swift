/// The value of an input row, as an edit sends it and the row's value field shows it: a
/// text field's text and a date picker's value are strings, a slider's and a stepper's
/// value numbers, a choice's `selected` an option id; `null` clears a choice or a date.
public enum InputValue: Hashable, Sendable {
    case string(String)
    case number(Double)
    case null

    public var json: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .null: .null
        }
    }

    /// The value as a state key stores it: `null` (no choice, no date) is `""`.
    public var stateValue: FieldValue {
        switch self {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .null: .string("")
        }
    }

    /// The value a JSON value stands for, or `nil` for booleans, arrays and objects.
    public init?(json: JSONValue) {
        switch json {
        case .string(let text): self = .string(text)
        case .number(let number): self = .number(number)
        case .null: self = .null
        default: return nil
        }
    }
}
