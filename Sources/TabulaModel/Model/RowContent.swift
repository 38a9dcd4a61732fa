/// What a row shows: its kind (the client's reuse identifier) and that kind's fields.
public enum RowContent: Hashable, Sendable {
    case basic(title: String)
    case subtitle(title: String, subtitle: String, image: String?)
    case leftRightTitles(leftTitle: String, rightTitle: String)
    case titleSwitch(title: String, isOn: Bool)
    case checkmark(title: String, isChecked: Bool)
    /// A spacer with no content.
    case empty
    case button(title: String, style: ButtonStyle)
    /// Input rows: the user changes their value, and the client sends it in an edit event.
    case textField(TextFieldInput)
    case slider(NumberInput)
    case stepper(NumberInput)
    case picker(ChoiceInput)
    case segmented(ChoiceInput)
    case datePicker(DateInput)
    /// A kind a screen definition declares itself, with typed fields.
    case custom(kind: String, fields: [String: FieldValue])

    /// The names of the built-in row kinds.
    public static let builtInKinds: [String] = [
        "basic", "subtitle", "leftRightTitles", "titleSwitch", "checkmark", "empty", "button",
        "textField", "slider", "stepper", "picker", "segmented", "datePicker",
    ]

    /// The names of the input kinds, whose value the user edits.
    public static let inputKinds: [String] = ["textField", "slider", "stepper", "picker", "segmented", "datePicker"]

    /// The kind as it appears on the wire.
    public var kind: String {
        switch self {
        case .basic: "basic"
        case .subtitle: "subtitle"
        case .leftRightTitles: "leftRightTitles"
        case .titleSwitch: "titleSwitch"
        case .checkmark: "checkmark"
        case .empty: "empty"
        case .button: "button"
        case .textField: "textField"
        case .slider: "slider"
        case .stepper: "stepper"
        case .picker: "picker"
        case .segmented: "segmented"
        case .datePicker: "datePicker"
        case .custom(let kind, _): kind
        }
    }

    /// Whether the row is an input row (its value is edited by the user).
    public var isInput: Bool {
        switch self {
        case .textField, .slider, .stepper, .picker, .segmented, .datePicker: true
        default: false
        }
    }

    /// An input row's value field (`text`, `value` or `selected`); `nil` for other kinds.
    public var inputValue: InputValue? {
        switch self {
        case .textField(let field): .string(field.text)
        case .slider(let number), .stepper(let number): .number(number.value)
        case .picker(let choice), .segmented(let choice): choice.selected.map(InputValue.string) ?? .null
        case .datePicker(let date): date.value.map(InputValue.string) ?? .null
        default: nil
        }
    }

    /// The row with its value field set to `value`, as the user's control shows it after an
    /// edit; `nil` when the row is not an input row or the value is not of its type.
    public func settingInputValue(_ value: InputValue) -> RowContent? {
        switch (self, value) {
        case (.textField(var field), .string(let text)):
            field.text = text
            return .textField(field)
        case (.slider(var number), .number(let new)):
            number.value = new
            return .slider(number)
        case (.stepper(var number), .number(let new)):
            number.value = new
            return .stepper(number)
        case (.picker(var choice), .string(let id)), (.segmented(var choice), .string(let id)):
            choice.selected = id
            return kind == "picker" ? .picker(choice) : .segmented(choice)
        case (.picker(var choice), .null), (.segmented(var choice), .null):
            choice.selected = nil
            return kind == "picker" ? .picker(choice) : .segmented(choice)
        case (.datePicker(var date), .string(let text)):
            date.value = text
            return .datePicker(date)
        case (.datePicker(var date), .null):
            date.value = nil
            return .datePicker(date)
        default:
            return nil
        }
    }

    /// The kind's fields in ascending byte order of their names (the wire order).
    public var fields: [(name: String, value: JSONValue)] {
        func optional<Value>(_ name: String, _ value: Value?, _ json: (Value) -> JSONValue) -> [(name: String, value: JSONValue)] {
            value.map { [(name, json($0))] } ?? []
        }
        func options(_ options: [ChoiceOption]) -> JSONValue {
            .array(options.map { .object(JSONObject(["id": .string($0.id), "title": .string($0.title)])) })
        }
        switch self {
        case .basic(let title):
            return [("title", .string(title))]
        case .subtitle(let title, let subtitle, let image):
            var fields: [(name: String, value: JSONValue)] = []
            if let image { fields.append(("image", .string(image))) }
            fields.append(("subtitle", .string(subtitle)))
            fields.append(("title", .string(title)))
            return fields
        case .leftRightTitles(let leftTitle, let rightTitle):
            return [("leftTitle", .string(leftTitle)), ("rightTitle", .string(rightTitle))]
        case .titleSwitch(let title, let isOn):
            return [("isOn", .bool(isOn)), ("title", .string(title))]
        case .checkmark(let title, let isChecked):
            return [("isChecked", .bool(isChecked)), ("title", .string(title))]
        case .empty:
            return []
        case .button(let title, let style):
            return [("style", .string(style.rawValue)), ("title", .string(title))]
        case .textField(let field):
            return [("contentType", .string(field.contentType.rawValue))]
                + optional("maxLength", field.maxLength) { .number(Double($0)) }
                + [("multiline", .bool(field.multiline))]
                + optional("placeholder", field.placeholder, JSONValue.string)
                + [("secure", .bool(field.secure)), ("text", .string(field.text)), ("title", .string(field.title))]
        case .slider(let number), .stepper(let number):
            return [("max", .number(number.max)), ("min", .number(number.min)), ("step", .number(number.step))]
                + optional("title", number.title, JSONValue.string) + [("value", .number(number.value))]
        case .picker(let choice), .segmented(let choice):
            return [("options", options(choice.options)), ("selected", choice.selected.map(JSONValue.string) ?? .null)]
                + optional("title", choice.title, JSONValue.string)
        case .datePicker(let date):
            return optional("max", date.max, JSONValue.string) + optional("min", date.min, JSONValue.string)
                + [("mode", .string(date.mode.rawValue)), ("title", .string(date.title)), ("value", date.value.map(JSONValue.string) ?? .null)]
        case .custom(_, let fields):
            return fields.sorted { $0.key.utf8Precedes($1.key) }
                .map { (name: $0.key, value: $0.value.json) }
        }
    }
}
