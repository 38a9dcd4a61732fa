/// A screen as its definition file declares it: typed state, sections and rows with
/// expressions and templates over that state, and the actions rows perform.
/// A class: definitions are immutable and shared, and copying one costs one retain.
public final class ScreenDefinition: Sendable {
    public let id: String
    /// The file the definition was loaded from, for messages.
    public let file: String
    public let title: Template
    public let style: TableStyle?
    /// The state keys this screen declares, in declared order.
    public let state: [(key: String, declaration: StateDeclaration)]
    /// Custom kinds this screen declares, by name.
    public let kinds: [String: KindDeclaration]
    public let sections: [SectionDefinition]
    /// Every state key the screen declares, reads or writes, with its declaration (its own,
    /// or another screen's for a shared key), in ascending order of keys.
    public let declarations: [(key: String, declaration: StateDeclaration)]
    /// The messages the definition names, in every locale; `nil` when it names none.
    public let strings: StringTables?
    /// On an item screen, the list key whose item it shows; `nil` on other screens.
    public let item: String?
    /// The definition as one self-contained document, and its id.
    public let document: DefinitionDocument
    /// Where each row id can come from, to find an event's row without rendering.
    let rowLocator: RowLocator
    /// What each part reads, for rendering at a new state from the screen at an old one.
    let dependencyMasks: DependencyMasks
    /// Whether a row's actions ask the app's backend (`call`): an event on this screen may
    /// need the session's id and subject.
    public let asksBackend: Bool
    /// Whether a row's actions add items (`append`): an event on this screen may need the
    /// session's id, which the ids Tabula gives them derive from.
    public let appendsItems: Bool

    public init(
        id: String, file: String, title: Template, style: TableStyle?,
        state: [(key: String, declaration: StateDeclaration)], kinds: [String: KindDeclaration],
        sections: [SectionDefinition], declarations: [(key: String, declaration: StateDeclaration)],
        strings: StringTables? = nil, item: String? = nil, document: DefinitionDocument
    ) {
        self.strings = strings
        self.item = item
        self.id = id
        self.file = file
        self.title = title
        self.style = style
        self.state = state
        self.kinds = kinds
        self.sections = sections
        self.declarations = declarations
        self.document = document
        rowLocator = RowLocator(sections)
        dependencyMasks = DependencyMasks(title: title, sections: sections, item: item)
        asksBackend = sections.contains { section in
            section.rows.contains { row in row.actionLists.contains { $0.contains(where: \.isCall) } }
        }
        appendsItems = sections.contains { section in section.rows.contains(where: \.appendsItems) }
    }

    /// The item an item screen shows at a state: the record of its list with this id; `nil`
    /// when the list holds none, or the screen is not an item screen.
    public func item(_ id: String?, in state: SessionState) -> Record? {
        guard let list = item, let id else { return nil }
        return state.records(list).first { $0.id == id }
    }

    /// The definition's id: what screens rendered by it carry in `"definition"`.
    public var definitionID: String { document.id }

    /// Every state key a title and sections read or write.
    static func stateKeys(title: Template, sections: [SectionDefinition]) -> Set<String> {
        var keys = title.stateKeys
        for section in sections {
            keys.formUnion(section.dependencies)
            for row in section.rows { keys.formUnion(row.actionStateKeys) }
        }
        return keys
    }

    /// The session state every key of this screen starts with.
    public var initialState: SessionState {
        var values: [String: StateValue] = [:]
        for (key, declaration) in state { values[key] = declaration.defaultValue }
        return SessionState(values: values)
    }
}

/// A section of a screen definition.
public final class SectionDefinition: Sendable {
    public let id: String
    public let header: HeaderFooterDefinition?
    public let footer: HeaderFooterDefinition?
    /// Hides the whole section when false.
    public let visibleWhen: Expression?
    /// Keeps the section on screen when none of its rows is visible.
    public let keepWhenEmpty: Bool
    public let rows: [RowDefinition]
    /// The form the section's input rows belong to; several sections may share one.
    public let form: String?
    /// Every state key the section's rendering reads: when none changed, neither did it.
    public let dependencies: Set<String>
    /// The keys the header's and the footer's fields read.
    public let headerDependencies: Set<String>
    public let footerDependencies: Set<String>

    public init(
        id: String, header: HeaderFooterDefinition?, footer: HeaderFooterDefinition?,
        visibleWhen: Expression?, keepWhenEmpty: Bool, rows: [RowDefinition], form: String? = nil
    ) {
        self.id = id
        self.header = header
        self.footer = footer
        self.visibleWhen = visibleWhen
        self.keepWhenEmpty = keepWhenEmpty
        self.rows = rows
        self.form = form
        headerDependencies = Set(header?.fields.values.flatMap(\.stateKeys) ?? [])
        footerDependencies = Set(footer?.fields.values.flatMap(\.stateKeys) ?? [])
        var keys = visibleWhen?.stateKeys ?? []
        keys.formUnion(headerDependencies)
        keys.formUnion(footerDependencies)
        for row in rows { keys.formUnion(row.dependencies) }
        dependencies = keys
    }
}

/// A value that a field takes at render time: a template for strings, an expression for
/// bools and numbers (a literal compiles to a constant expression).
public enum FieldSource: Sendable {
    case template(Template)
    case expression(Expression)

    public var stateKeys: Set<String> {
        switch self {
        case .template(let template): template.stateKeys
        case .expression(let expression): expression.stateKeys
        }
    }

    public func evaluate(_ context: EvaluationContext) -> FieldValue {
        switch self {
        case .template(let template): .string(template.evaluate(context))
        case .expression(let expression): expression.evaluate(context)
        }
    }
}

/// A header or footer model in a definition: its kind and its fields' sources.
public struct HeaderFooterDefinition: Sendable {
    public let kind: String
    public let fields: [String: FieldSource]

    public init(kind: String, fields: [String: FieldSource]) {
        self.kind = kind
        self.fields = fields
    }
}

/// A custom kind a definition declares: its name and typed fields (all required), and what
/// a client that does not draw it gets instead.
public struct KindDeclaration: Hashable, Sendable {
    public let name: String
    public let fields: [String: ScalarType]
    public let fallback: KindFallback?

    public init(name: String, fields: [String: ScalarType], fallback: KindFallback? = nil) {
        self.name = name
        self.fields = fields
        self.fallback = fallback
    }
}

/// A custom kind's stand-in, for clients that list the kinds they draw and not this one:
/// another kind (built-in, or custom with a fallback of its own), whose fields take the
/// values of the custom kind's fields.
public struct KindFallback: Hashable, Sendable {
    public let kind: String
    /// Each field of `kind`, and the field of the custom kind whose value it takes.
    public let fields: [String: String]

    public init(kind: String, fields: [String: String]) {
        self.kind = kind
        self.fields = fields
    }
}
