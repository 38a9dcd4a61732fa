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
    /// A kind a screen definition declares itself, with typed fields.
    case custom(kind: String, fields: [String: FieldValue])

    /// The names of the built-in row kinds.
    public static let builtInKinds: [String] = [
        "basic", "subtitle", "leftRightTitles", "titleSwitch", "checkmark", "empty", "button",
    ]

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
        case .custom(let kind, _): kind
        }
    }

    /// The kind's fields in ascending byte order of their names (the wire order).
    public var fields: [(name: String, value: FieldValue)] {
        switch self {
        case .basic(let title):
            return [("title", .string(title))]
        case .subtitle(let title, let subtitle, let image):
            var fields: [(name: String, value: FieldValue)] = []
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
        case .custom(_, let fields):
            return fields.sorted { $0.key.utf8Precedes($1.key) }
                .map { (name: $0.key, value: $0.value) }
        }
    }
}
