extension DefinitionReader {
    /// The fields of each built-in row kind: name, type, required.
    static let builtInRowFields: [String: [(name: String, type: ScalarType, required: Bool)]] = [
        "basic": [("title", .string, true)],
        "subtitle": [("title", .string, true), ("subtitle", .string, true), ("image", .string, false)],
        "leftRightTitles": [("leftTitle", .string, true), ("rightTitle", .string, true)],
        "titleSwitch": [("title", .string, true), ("isOn", .bool, true)],
        "checkmark": [("title", .string, true), ("isChecked", .bool, true)],
        "empty": [],
        "button": [("title", .string, true)],
    ]

    mutating func readRow(_ json: JSONValue, path: String) -> RowDefinition? {
        guard var object = DefinitionObject(json, path: path, log: &log) else { return nil }
        let forEach = readForEach(&object)
        let scope = ExpressionScope(
            state: stateTypes,
            item: forEach.flatMap { list in
                if case .list(let schema)? = stateTypes[list] { return (list, schema) }
                return nil
            })
        let id = object.require("id", log: &log).flatMap { rowID($0, path: object.memberPath("id"), forEach: forEach, scope: scope) }
        let kind = object.requireString("kind", log: &log)
        var fields: [String: FieldSource] = [:]
        if let kind {
            if let builtIn = Self.builtInRowFields[kind] {
                fields = readFields(&object, builtIn, scope: scope)
                if kind == "button" {
                    let style = object.optionalEnumeration("style", as: ButtonStyle.self, log: &log) ?? .default
                    fields["style"] = .template(Template(constant: style.rawValue))
                }
            } else if let declaration = kinds[kind] {
                let fieldTypes = declaration.fields.keys.sorted().compactMap { name in declaration.fields[name].map { (name, $0, true) } }
                fields = readFields(&object, fieldTypes, scope: scope)
            } else {
                log.add(
                    .unknownKind, at: object.memberPath("kind"),
                    "unknown kind \"\(kind)\"; use \(RowContent.builtInKinds.joined(separator: ", ")) or a kind declared under \"kinds\"")
            }
        }
        let visibleWhen = object.take("visibleWhen").flatMap { expression($0, type: .bool, path: object.memberPath("visibleWhen"), scope: scope) }
        let accessory = object.optionalEnumeration("accessory", as: Accessory.self, log: &log)
        let height = object.take("height").flatMap { dimension($0, path: object.memberPath("height"), scope: scope) }
        let estimatedHeight = object.take("estimatedHeight").flatMap { dimension($0, path: object.memberPath("estimatedHeight"), scope: scope) }
        let onSelect = object.take("onSelect").flatMap { actions($0, path: object.memberPath("onSelect"), scope: scope) }
        let onSwitch = object.take("onSwitch").flatMap { switchAction($0, path: object.memberPath("onSwitch")) }
        let onDelete = object.take("onDelete").flatMap { actions($0, path: object.memberPath("onDelete"), scope: scope) }
        object.reportUnread(
            log: &log,
            hints: [
                "selectable": "a row is selectable exactly when it has \"onSelect\"",
                "deletable": "a row is deletable exactly when it has \"onDelete\"",
            ])
        guard let id, let kind, Self.builtInRowFields[kind] != nil || kinds[kind] != nil else { return nil }
        return RowDefinition(
            id: id, forEach: forEach, kind: kind, fields: fields, visibleWhen: visibleWhen, accessory: accessory,
            height: height, estimatedHeight: estimatedHeight, onSelect: onSelect, onSwitch: onSwitch, onDelete: onDelete,
            path: object.path)
    }

    private mutating func readForEach(_ object: inout DefinitionObject) -> String? {
        guard let value = object.take("forEach") else { return nil }
        let path = object.memberPath("forEach")
        guard case .string(let list) = value else {
            log.wrongType(at: path, expected: "the name of a list state key", found: value)
            return nil
        }
        switch stateTypes[list] {
        case .list?: return list
        case .scalar(let type)?:
            log.add(.typeMismatch, at: path, "\"\(list)\" is a \(type.rawValue), not a list; forEach repeats a row over a list")
        case nil:
            log.add(.unknownStateKey, at: path, "unknown state key \"\(list)\"; declare it under \"state\" as a list of records")
        }
        return nil
    }

    /// A fixed id, or inside `forEach` a template `prefix{{item.id}}suffix` so that every
    /// item gives a distinct id.
    private mutating func rowID(_ value: JSONValue, path: String, forEach: String?, scope: ExpressionScope) -> Template? {
        guard case .string(let text) = value, !text.isEmpty else {
            log.add(.structure, at: path, "a row id must be a non-empty string")
            return nil
        }
        guard forEach != nil else {
            if text.contains("{{") {
                log.add(.structure, at: path, "a row without \"forEach\" has a fixed id; remove the {{ }} (identity must not change with state)")
                return nil
            }
            return Template(constant: text)
        }
        guard let compiled = template(value, path: path, scope: scope) else { return nil }
        guard let affixes = compiled.singleExpressionAffixes, case .itemField("id", _) = affixes.expression.node else {
            log.add(
                .duplicateRowID, at: path,
                "a forEach row's id must be fixed text around one {{item.id}} and no other {{ }} part, like \"network-{{item.id}}\", so that no two items give the same id"
            )
            return nil
        }
        guard TextJoin.keepsApart(prefix: affixes.prefix, suffix: affixes.suffix) else {
            log.add(
                .duplicateRowID, at: path,
                "the character just before or after {{item.id}} can fuse with an item id's (like a joiner, a Hangul jamo or a flag letter), so two rows could get the same id; put a letter, digit or '-' next to {{item.id}}"
            )
            return nil
        }
        return compiled
    }

    private mutating func dimension(_ value: JSONValue, path: String, scope: ExpressionScope) -> Expression? {
        if case .number(let number) = value, number < 0 {
            log.add(.structure, at: path, "a height cannot be negative")
            return nil
        }
        return expression(value, type: .number, path: path, scope: scope)
    }
}
