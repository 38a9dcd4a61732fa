/// One row of a table screen, as a client decodes it.
public struct Row: Hashable, Sendable {
    /// Stable identity within the whole screen; the diff matches rows by it.
    public var id: String
    public var content: RowContent
    /// Whether selecting the row does something (it has an `onSelect` action).
    public var selectable: Bool
    /// Whether the row can be swiped away (it has an `onDelete` action).
    public var deletable: Bool
    /// Whether the user can drag the row to another place among its list's rows (it has an
    /// `onMove` action).
    public var movable: Bool
    /// The actions a swipe from the leading edge reveals, and from the trailing edge; each
    /// written only when not empty.
    public var leadingActions: [SwipeAction]
    public var trailingActions: [SwipeAction]
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
    /// What an assistive technology says of the row, each only when the definition gives it.
    public var accessibility: RowAccessibility

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
        estimatedHeight: Double? = nil,
        movable: Bool = false,
        leadingActions: [SwipeAction] = [],
        trailingActions: [SwipeAction] = [],
        accessibility: RowAccessibility = RowAccessibility()
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
        self.movable = movable
        self.leadingActions = leadingActions
        self.trailingActions = trailingActions
        self.accessibility = accessibility
    }

    /// The client's reuse identifier.
    public var kind: String { content.kind }

    /// Keys every row may carry besides its kind's fields; custom kinds cannot use them.
    public static let reservedKeys: Set<String> = [
        "id", "kind", "selectable", "deletable", "movable", "enabled", "editable", "error", "accessory", "height", "estimatedHeight",
        "leadingActions", "trailingActions", "accessibilityLabel", "accessibilityHint", "accessibilityValue",
    ]
}

/// A row's texts for assistive technologies (VoiceOver, TalkBack, screen readers):
/// `accessibilityLabel`, `accessibilityHint` and `accessibilityValue` on the wire.
public struct RowAccessibility: Hashable, Sendable {
    public var label: String?
    public var hint: String?
    public var value: String?

    public init(label: String? = nil, hint: String? = nil, value: String? = nil) {
        self.label = label
        self.hint = hint
        self.value = value
    }
}
