/// One row of a table screen, as a client decodes it.
public struct Row: Hashable, Sendable {
    /// Stable identity within the whole screen; the diff matches rows by it.
    public var id: String
    public var content: RowContent
    /// Whether selecting the row does something (it has an `onSelect` action).
    public var selectable: Bool
    /// Whether the row can be swiped away (it has an `onDelete` action).
    public var deletable: Bool
    public var accessory: Accessory?
    public var height: Double?
    public var estimatedHeight: Double?

    public init(
        id: String,
        content: RowContent,
        selectable: Bool = false,
        deletable: Bool = false,
        accessory: Accessory? = nil,
        height: Double? = nil,
        estimatedHeight: Double? = nil
    ) {
        self.id = id
        self.content = content
        self.selectable = selectable
        self.deletable = deletable
        self.accessory = accessory
        self.height = height
        self.estimatedHeight = estimatedHeight
    }

    /// The client's reuse identifier.
    public var kind: String { content.kind }

    /// Keys every row may carry besides its kind's fields; custom kinds cannot use them.
    public static let reservedKeys: Set<String> = [
        "id", "kind", "selectable", "deletable", "accessory", "height", "estimatedHeight",
    ]
}
