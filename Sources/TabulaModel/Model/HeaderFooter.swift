/// A section header or footer model: a kind and its fields.
public enum HeaderFooter: Hashable, Sendable {
    case titleHeader(title: String)
    case textFooter(text: String)
    /// A kind a screen definition declares itself, with typed fields.
    case custom(kind: String, fields: [String: FieldValue])

    /// The names of the built-in header and footer kinds.
    public static let builtInKinds: [String] = ["titleHeader", "textFooter"]

    public var kind: String {
        switch self {
        case .titleHeader: "titleHeader"
        case .textFooter: "textFooter"
        case .custom(let kind, _): kind
        }
    }

    /// The kind's fields in ascending byte order of their names (the wire order).
    public var fields: [(name: String, value: FieldValue)] {
        switch self {
        case .titleHeader(let title): [("title", .string(title))]
        case .textFooter(let text): [("text", .string(text))]
        case .custom(_, let fields):
            fields.sorted { $0.key.utf8Precedes($1.key) }
                .map { (name: $0.key, value: $0.value) }
        }
    }
}
