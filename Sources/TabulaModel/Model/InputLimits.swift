/// The hard limits of an input row's control: what an edit may send. They are the
/// control's, not the definition's `validate` rules: a value past them is refused (422
/// `invalid-value`), while a value that breaks a rule is stored and shown with its message.
extension RowContent {
    /// Whether an edit may set the row's value to `value`: a text field takes a string of
    /// at most `maxLength` characters (as Swift counts them) with no control characters
    /// (but newlines in a multiline field: the control characters Swift counts as newlines,
    /// U+000A–U+000D and U+0085); a slider or stepper a number within `min`…`max` on a step;
    /// a picker or segmented control one of its options' ids, and a picker `null` too; a date
    /// picker a value in its mode's format within `min`…`max`, or `null`. Other kinds take no
    /// value.
    public func accepts(_ value: InputValue) -> Bool {
        switch (self, value) {
        case (.textField(let field), .string(let text)):
            if let maxLength = field.maxLength, text.count > maxLength { return false }
            return !text.unicodeScalars.contains { scalar in
                Self.isControl(scalar) && !(field.multiline && Character(scalar).isNewline)
            }
        case (.slider(let number), .number(let candidate)), (.stepper(let number), .number(let candidate)):
            return number.accepts(candidate)
        case (.picker(let choice), .string(let id)), (.segmented(let choice), .string(let id)):
            return choice.options.contains { $0.id == id }
        case (.picker, .null), (.datePicker, .null):
            return true
        case (.datePicker(let date), .string(let text)):
            return date.mode.accepts(text) && date.min.map { text >= $0 } ?? true && date.max.map { text <= $0 } ?? true
        default:
            return false
        }
    }

    /// The value an edit that ``accepts(_:)`` `value` stores: the value itself, but that a
    /// number up to 1e-9 past `min` or `max` (a client's arithmetic on steps) is the bound,
    /// so that the state never holds what the control cannot show.
    public func settled(_ value: InputValue) -> InputValue {
        switch (self, value) {
        case (.slider(let number), .number(let candidate)), (.stepper(let number), .number(let candidate)):
            .number(Swift.min(Swift.max(candidate, number.min), number.max))
        default:
            value
        }
    }

    /// Whether a scalar is a control character (general category Cc): U+0000–U+001F and
    /// U+007F–U+009F, a set Unicode's stability policy keeps as it is. Compared by value:
    /// looking the category up in the tables for every scalar of every edit is dearer.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// What ``accepts(_:)`` lets through, in words, for the message of a refused edit.
    public var acceptedValues: String {
        func number(_ value: Double) -> String { JSONValue.number(value).canonicalText }
        switch self {
        case .textField(let field):
            let length = field.maxLength.map { " of at most \($0) characters" } ?? ""
            let lines = field.multiline ? "newlines but no other control characters" : "no control characters"
            return "a string\(length) with \(lines)"
        case .slider(let input), .stepper(let input):
            let steps = input.step > 0 ? " in steps of \(number(input.step)) from \(number(input.min))" : ""
            return "a number from \(number(input.min)) to \(number(input.max))\(steps)"
        case .picker(let choice):
            return "the id of one of its options (\(Self.optionIDs(choice))) or null"
        case .segmented(let choice):
            return "the id of one of its options (\(Self.optionIDs(choice)))"
        case .datePicker(let date):
            let from = date.min.map { " from \"\($0)\"" } ?? ""
            let to = date.max.map { " to \"\($0)\"" } ?? ""
            return "a \(date.mode.rawValue) like \(date.mode.example)\(from)\(to), or null"
        default:
            return "no value: it is not an input row"
        }
    }

    private static func optionIDs(_ choice: ChoiceInput) -> String {
        choice.options.map { "\"\($0.id)\"" }.joined(separator: ", ")
    }

    /// Whether the row is a secure text field, whose value the service never keeps.
    public var isSecureText: Bool {
        if case .textField(let field) = self { return field.secure }
        return false
    }
}
