/// A row of a screen definition; with `forEach` it stands for one row per list item.
public final class RowDefinition: Sendable {
    /// The row's id; inside `forEach` a template of the form `prefix{{item.id}}suffix`.
    public let id: Template
    /// The list key the row repeats over, if any.
    public let forEach: String?
    /// Which of the list's items the row shows, and in which order; all, in the list's
    /// order, when `nil`.
    public let selection: ItemSelection?
    public let kind: String
    /// The kind's fields (for `button`, `style` is a constant template).
    public let fields: [String: FieldSource]
    public let visibleWhen: Expression?
    /// When the row takes events; always, when `nil`.
    public let enabledWhen: Expression?
    /// A `picker`'s or `segmented` row's options.
    public let options: ChoiceOptions?
    public let accessory: Accessory?
    public let height: Expression?
    public let estimatedHeight: Expression?
    public let onSelect: [Action]?
    public let onSwitch: SwitchAction?
    public let onDelete: [Action]?
    /// With `forEach`: the list a drag of the row reorders (its own list).
    public let onMove: String?
    /// The swipe actions, from the leading and the trailing edge; ids unique across both.
    public let leadingActions: [SwipeActionDefinition]
    public let trailingActions: [SwipeActionDefinition]
    public let accessibility: AccessibilityDefinition
    /// What editing an input row does; `nil` for other kinds and for a secure text field,
    /// which stores nothing.
    public let onEdit: EditAction?
    /// An input row's rules, in order: the first that its value fails gives its `error`,
    /// once the row is touched.
    public let validate: [ValidationRule]
    /// For the `leftRightTitles` row a client that does not draw an input kind gets: that
    /// input kind, rendered and then shown as text (``RowContent/asLeftRightTitles``).
    public let summarizedInputKind: String?
    /// Where the row is declared (`$.sections[0].rows[2]`), for messages.
    public let path: String
    /// For a custom kind with a fallback: the row as each kind of its fallback chain, in
    /// order (the same row, with the fallback's kind and fields).
    public let fallbacks: [RowDefinition]

    /// Every state key the row's rendering reads (its list too, when it repeats): when none
    /// changed, neither did its rows.
    public let dependencies: Set<String>
    /// Whether the row is an input row (its kind is one of ``RowContent/inputKinds``), set
    /// once: render asks it of every row.
    public let isInput: Bool
    /// The keys that decide whether the row is there and which instances it has: its id's,
    /// its list's, its selection's and its `visibleWhen`'s. When none changed, its rows are the same ones.
    public let structureDependencies: Set<String>
    /// Every key the row's rendering reads but those only its selection reads: when none
    /// changed, each of its rows still shown is what it was (a search or a "show more"
    /// changes which items are shown, not how one is drawn).
    public let contentDependencies: Set<String>

    public init(
        id: Template, forEach: String?, kind: String, fields: [String: FieldSource],
        visibleWhen: Expression?, enabledWhen: Expression? = nil, options: ChoiceOptions? = nil, accessory: Accessory?,
        height: Expression?, estimatedHeight: Expression?, onSelect: [Action]?, onSwitch: SwitchAction?, onDelete: [Action]?,
        onEdit: EditAction? = nil, validate: [ValidationRule] = [], summarizedInputKind: String? = nil, path: String,
        fallbacks: [RowDefinition] = [], selection: ItemSelection? = nil, onMove: String? = nil,
        leadingActions: [SwipeActionDefinition] = [], trailingActions: [SwipeActionDefinition] = [],
        accessibility: AccessibilityDefinition = AccessibilityDefinition()
    ) {
        self.onMove = onMove
        self.leadingActions = leadingActions
        self.trailingActions = trailingActions
        self.accessibility = accessibility
        self.id = id
        self.forEach = forEach
        self.selection = selection
        self.kind = kind
        self.fields = fields
        self.visibleWhen = visibleWhen
        self.enabledWhen = enabledWhen
        self.options = options
        self.accessory = accessory
        self.height = height
        self.estimatedHeight = estimatedHeight
        self.onSelect = onSelect
        self.onSwitch = onSwitch
        self.onDelete = onDelete
        self.onEdit = onEdit
        self.validate = validate
        self.summarizedInputKind = summarizedInputKind
        self.path = path
        self.fallbacks = fallbacks
        isInput = RowContent.inputKinds.contains(kind)
        var structure = id.stateKeys
        if let forEach { structure.insert(forEach) }
        if let visibleWhen { structure.formUnion(visibleWhen.stateKeys) }
        var keys = structure
        if let selection { structure.formUnion(selection.stateKeys) }
        structureDependencies = structure
        for source in fields.values { keys.formUnion(source.stateKeys) }
        if let enabledWhen { keys.formUnion(enabledWhen.stateKeys) }
        if let options { keys.formUnion(options.stateKeys) }
        for rule in validate { keys.formUnion(rule.stateKeys) }
        for action in leadingActions + trailingActions { keys.formUnion(action.stateKeys) }
        keys.formUnion(accessibility.stateKeys)
        for expression in [height, estimatedHeight].compactMap({ $0 }) { keys.formUnion(expression.stateKeys) }
        contentDependencies = keys
        dependencies = keys.union(structure)
    }
}

extension RowDefinition {
    /// The row as a client that draws `kinds` gets it (every kind, when `nil`): itself when
    /// it lists the row's kind, else the first of its fallbacks whose kind it lists; `nil`
    /// when there is none, and the row is left out of that client's screen. An input row is
    /// never left out: a client that does not list its kind gets it as a `leftRightTitles`
    /// summary, listed or not.
    public func shown(drawing kinds: Set<String>?) -> RowDefinition? {
        guard let kinds, !kinds.contains(kind) else { return self }
        return fallbacks.first { kinds.contains($0.kind) } ?? fallbacks.first { $0.summarizedInputKind != nil }
    }

    /// Both edges' swipe actions, leading first.
    var swipeActions: [SwipeActionDefinition] { leadingActions + trailingActions }

    /// Every action list the row runs for some event: what may hold a `call`.
    var actionLists: [[Action]] {
        [onSelect, onDelete].compactMap { $0 } + swipeActions.map(\.onAction)
    }

    /// Whether some event on the row adds an item with an id Tabula gives (`append`).
    var appendsItems: Bool {
        var lists = actionLists
        if case .actions(let actions)? = onEdit { lists.append(actions) }
        return lists.contains { $0.contains(where: \.isAppend) }
    }

    /// The rows whose values its `equals` rules compare with (fixed ids of the same screen).
    var equalsTargets: [String] {
        validate.compactMap { rule in
            if case .equals(let row) = rule.check { return row }
            return nil
        }
    }

    /// The state keys the row's actions read or write.
    var actionStateKeys: Set<String> {
        var keys: Set<String> = []
        for action in (onSelect ?? []) + (onDelete ?? []) + swipeActions.flatMap(\.onAction) { keys.formUnion(action.stateKeys) }
        if let onMove { keys.insert(onMove) }
        if let onSwitch, Action.itemField(of: onSwitch.key) == nil { keys.insert(onSwitch.key) }
        if let onEdit { keys.formUnion(onEdit.stateKeys) }
        return keys
    }
}

/// What selecting (or deleting) a row does.
public enum Action: Sendable {
    /// Flips a bool key.
    case toggle(String)
    /// Sets scalar keys; string values are templates, bool and number values expressions.
    /// A key `item.FIELD`, in a `forEach` row, sets that field of the row's item.
    case set([(key: String, value: FieldSource)])
    /// Asks the client to show another screen (an effect, not a state change); an item
    /// screen with the item the template names.
    case navigate(String, item: Template?)
    /// Asks the client to return to the screen it came from (an effect).
    case back
    /// Asks the client to open a URL (an effect, not a state change).
    case open(Template)
    /// Removes the current `forEach` item from its list.
    case remove(String)
    /// Touches and checks every input row of a form; when one fails its rules, the actions
    /// after it do not run.
    case submit(String)
    /// Sets the keys a form's rows store into back to their defaults and clears their
    /// marks.
    case reset(String)
    /// Asks the app's backend, within the event, and applies its answer: a state patch,
    /// errors on rows, effects (see ``CallAnswer``). When it names errors, the actions after
    /// it do not run.
    case call(String)
    /// Adds an item to a list, at its end or its start.
    case append(ItemAppend)

    var isAppend: Bool {
        if case .append = self { return true }
        return false
    }

    var isCall: Bool {
        if case .call = self { return true }
        return false
    }

    /// The form a `submit` action names.
    var submittedForm: String? {
        if case .submit(let form) = self { return form }
        return nil
    }

    /// The field an assignment's key `item.FIELD` names, or `nil` for a state key.
    static func itemField(of key: String) -> String? {
        key.hasPrefix("item.") ? String(key.dropFirst(5)) : nil
    }

    /// The state keys the action reads or writes (a `forEach` row's item fields are its
    /// list's, which the row reads already).
    var stateKeys: Set<String> {
        switch self {
        case .toggle(let key), .remove(let key): [key]
        case .set(let assignments):
            assignments.reduce(into: Set(assignments.map(\.key).filter { Self.itemField(of: $0) == nil })) { $0.formUnion($1.value.stateKeys) }
        case .navigate(_, let item): item?.stateKeys ?? []
        case .back, .submit, .reset, .call: []
        case .open(let url): url.stateKeys
        case .append(let append): append.stateKeys
        }
    }
}

/// What a row's switch does: store its new value in a bool key (or, `item.FIELD`, in a bool
/// field of the row's item).
public struct SwitchAction: Hashable, Sendable {
    public let key: String

    public init(key: String) {
        self.key = key
    }
}
