/// The members of a definition's objects. The reader takes each by these names and
/// ``DefinitionSchema`` describes each, switching over them: a member one knows, the other
/// knows too.
protocol DefinitionMember: CaseIterable, Hashable where Self: RawRepresentable, RawValue == String {}

/// A member name, as ``DefinitionObject`` takes it: a ``DefinitionMember`` or, for a kind's
/// fields, a `String`.
protocol DefinitionKey {
    var name: String { get }
}

extension String: DefinitionKey {
    var name: String { self }
}

extension DefinitionMember {
    var name: String { rawValue }
}

/// The members of a definition file's top-level object.
enum ScreenMember: String, DefinitionMember, DefinitionKey {
    /// Names the JSON Schema editors check the file with; not part of the screen, nor of
    /// its document.
    case schema = "$schema"
    case id, title, style, state, kinds, item, sections
}

/// The members of a section.
enum SectionMember: String, DefinitionMember, DefinitionKey {
    case id, header, footer, visibleWhen, keepWhenEmpty, form, rows
}

/// The members every row may have besides its kind's fields.
enum RowMember: String, DefinitionMember, DefinitionKey {
    case id, kind, forEach, filter, sort, limit, visibleWhen, enabledWhen, accessory, height, estimatedHeight, onSelect, onSwitch, onDelete,
        onMove, leadingActions, trailingActions, onEdit, validate, accessibilityLabel, accessibilityHint, accessibilityValue

    /// The names a custom kind's field cannot take: the members every row carries on the
    /// wire, and the members a row's definition means itself (a field named `visibleWhen`
    /// would be read twice, as the field and as the row's visibility).
    static let reservedFieldNames: Set<String> = Row.reservedKeys.union(allCases.map(\.rawValue))
}

/// The members of a state key's explicit declaration, `{"type": ..., "default": ..., "item": ...}`.
enum StateDeclarationMember: String, DefinitionMember, DefinitionKey {
    case type, item, `default`
}
