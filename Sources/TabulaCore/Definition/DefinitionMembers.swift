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

    /// The types a custom kind's field may have when it is named like a field of the built-in
    /// kinds, rows' or headers' and footers': on the wire a row carries its fields by name,
    /// whatever its kind, so a client that reads them by name (the OpenAPI document's `Row`,
    /// a client generated from it) finds each name with one type. An empty set: the name's
    /// value is not a scalar a kind can declare (a word of a list, an array, a number
    /// within bounds).
    static let builtInFieldTypes: [String: Set<ScalarType>] = [
        "title": [.string], "subtitle": [.string], "image": [.string], "leftTitle": [.string], "rightTitle": [.string], "text": [.string],
        "placeholder": [.string], "selected": [.string], "isOn": [.bool], "isChecked": [.bool], "secure": [.bool], "multiline": [.bool],
        "value": [.number, .string], "min": [.number, .string], "max": [.number, .string],
        "step": [], "maxLength": [], "style": [], "contentType": [], "mode": [], "options": [],
    ]
}

/// The members of a state key's explicit declaration, `{"type": ..., "default": ..., "item": ...}`.
enum StateDeclarationMember: String, DefinitionMember, DefinitionKey {
    case type, item, `default`
}
