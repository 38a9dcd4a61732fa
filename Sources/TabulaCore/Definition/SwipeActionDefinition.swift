/// A swipe action a row declares under `leadingActions` or `trailingActions`: shown while
/// its `visibleWhen` holds; an action event naming it runs `onAction`.
public struct SwipeActionDefinition: Sendable {
    public let id: String
    public let title: Template
    public let style: SwipeAction.Style
    public let visibleWhen: Expression?
    public let onAction: [Action]

    public init(id: String, title: Template, style: SwipeAction.Style, visibleWhen: Expression?, onAction: [Action]) {
        self.id = id
        self.title = title
        self.style = style
        self.visibleWhen = visibleWhen
        self.onAction = onAction
    }

    /// The state keys its title and visibility read.
    var stateKeys: Set<String> {
        title.stateKeys.union(visibleWhen?.stateKeys ?? [])
    }

    /// The action as the client gets it, or `nil` while it is hidden.
    func render(_ context: EvaluationContext) -> SwipeAction? {
        guard visibleWhen?.isTrue(context) ?? true else { return nil }
        return SwipeAction(id: id, title: title.evaluate(context), style: style)
    }
}

/// A row's texts for assistive technologies, as templates; each `nil` when not declared.
public struct AccessibilityDefinition: Sendable {
    public let label: Template?
    public let hint: Template?
    public let value: Template?

    public init(label: Template? = nil, hint: Template? = nil, value: Template? = nil) {
        self.label = label
        self.hint = hint
        self.value = value
    }

    var stateKeys: Set<String> {
        [label, hint, value].reduce(into: Set<String>()) { keys, template in keys.formUnion(template?.stateKeys ?? []) }
    }

    func render(_ context: EvaluationContext) -> RowAccessibility {
        RowAccessibility(label: label?.evaluate(context), hint: hint?.evaluate(context), value: value?.evaluate(context))
    }
}
