/// One row of a table screen, as a client decodes it.
public struct Row: Hashable, Sendable {
    /// Stable identity within the whole screen; the diff matches rows by it.
    public var id: String
    public var content: RowContent
    /// Whether selecting the row does something (it has an `onSelect` action).
    public var selectable: Bool
    /// Whether the row can be swiped away (it has an `onDelete` action).
    public var deletable: Bool
    /// Whether the row takes events now; a disabled row is drawn dimmed and refuses them.
    public var enabled: Bool
    /// For an input row: whether the user can change its value (it is enabled and has an
    /// `onEdit`, or is a secure text field). Always `false` for other kinds.
    public var editable: Bool
    /// For an input row: the message shown under it while its value fails a rule.
    public var error: String?
    public var accessory: Accessory?
    public var height: Double?
    public var estimatedHeight: Double?

    public init(
        id: String,
        content: RowContent,
        selectable: Bool = false,
        deletable: Bool = false,
        enabled: Bool = true,
        editable: Bool = false,
        error: String? = nil,
        accessory: Accessory? = nil,
        height: Double? = nil,
        estimatedHeight: Double? = nil
    ) {
        self.id = id
        self.content = content
        self.selectable = selectable
        self.deletable = deletable
        self.enabled = enabled
        self.editable = editable
        self.error = error
        self.accessory = accessory
        self.height = height
        self.estimatedHeight = estimatedHeight
    }

    /// The client's reuse identifier.
    public var kind: String { content.kind }

    /// Keys every row may carry besides its kind's fields; custom kinds cannot use them.
    public static let reservedKeys: Set<String> = [
        "id", "kind", "selectable", "deletable", "enabled", "editable", "error", "accessory", "height", "estimatedHeight",
    ]
}
