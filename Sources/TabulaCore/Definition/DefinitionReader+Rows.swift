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

    /// The one built-in field that is not an expression or template: a button's style.
    static let buttonStyleField = (kind: "button", name: "style")

    /// Advice for members that people expect a row to take, but that it does not.
    static let rowMemberHints = [
        "selectable": "a row is selectable exactly when it has \"onSelect\"",
        "deletable": "a row is deletable exactly when it has \"onDelete\"",
        "enabled": "a row is enabled unless its \"enabledWhen\" is false",
        "editable": "an input row is editable exactly when it has \"onEdit\" and is enabled",
    ]

    /// What a client that does not draw an input kind gets instead.
    static let inputFallbackKind = "leftRightTitles"

    mutating func readRow(_ json: JSONValue, path: String) -> RowDefinition? {
        guard var object = DefinitionObject(json, path: path, log: &log) else { return nil }
        let forEach = readForEach(&object)
        // `item` is the row's item in a `forEach` row, else an item screen's item.
        let scope = ExpressionScope(
            state: stateTypes,
            item: forEach.flatMap { list in
                if case .list(let schema)? = stateTypes[list] { return (list, schema) }
                return nil
            } ?? screenItem, strings: strings)
        let id = object.require(RowMember.id, log: &log).flatMap { rowID($0, path: object.memberPath(RowMember.id), forEach: forEach, scope: scope) }
        let kind = object.requireString(RowMember.kind, log: &log)
        var fields: [String: FieldSource] = [:]
        var options: ChoiceOptions?
        var secure = false
        if let kind {
            if RowContent.inputKinds.contains(kind) {
                (fields, options, secure) = readInputFields(kind, &object, scope: scope)
            } else if let builtIn = Self.builtInRowFields[kind] {
                fields = readFields(&object, builtIn, scope: scope)
                if kind == Self.buttonStyleField.kind {
                    let style = object.optionalEnumeration(Self.buttonStyleField.name, as: ButtonStyle.self, log: &log) ?? .default
                    fields[Self.buttonStyleField.name] = .template(Template(constant: style.rawValue))
                }
            } else if let declaration = kinds[kind] {
                let fieldTypes = declaration.fields.keys.sorted().compactMap { name in declaration.fields[name].map { (name, $0, true) } }
                fields = readFields(&object, fieldTypes, scope: scope)
            } else {
                log.add(
                    .unknownKind, at: object.memberPath(RowMember.kind),
                    "unknown kind \"\(kind)\"; use \(RowContent.builtInKinds.joined(separator: ", ")) or a kind declared under \"kinds\"")
            }
        }
        let selection = readItemSelection(&object, forEach: forEach, scope: scope)
        let visibleWhen = object.take(RowMember.visibleWhen).flatMap {
            expression($0, type: .bool, path: object.memberPath(RowMember.visibleWhen), scope: scope)
        }
        let enabledWhen = object.take(RowMember.enabledWhen).flatMap {
            expression($0, type: .bool, path: object.memberPath(RowMember.enabledWhen), scope: scope)
        }
        let accessory = object.optionalEnumeration(RowMember.accessory, as: Accessory.self, log: &log)
        let height = object.take(RowMember.height).flatMap { dimension($0, path: object.memberPath(RowMember.height), scope: scope) }
        let estimatedHeight = object.take(RowMember.estimatedHeight).flatMap {
            dimension($0, path: object.memberPath(RowMember.estimatedHeight), scope: scope)
        }
        let onSelect = object.take(RowMember.onSelect).flatMap { actions($0, path: object.memberPath(RowMember.onSelect), scope: scope) }
        let onSwitch = object.take(RowMember.onSwitch).flatMap { switchAction($0, path: object.memberPath(RowMember.onSwitch), scope: scope) }
        let onDelete = object.take(RowMember.onDelete).flatMap { actions($0, path: object.memberPath(RowMember.onDelete), scope: scope) }
        let onMove = object.take(RowMember.onMove).flatMap {
            moveAction($0, path: object.memberPath(RowMember.onMove), forEach: forEach, sorted: selection?.sort != nil)
        }
        let leadingActions = readSwipeActions(&object, RowMember.leadingActions, scope: scope)
        let trailingActions = readSwipeActions(&object, RowMember.trailingActions, scope: scope)
        var seenActions: Set<String> = []
        for (index, action) in (leadingActions + trailingActions).enumerated() where !seenActions.insert(action.id).inserted {
            let member = index < leadingActions.count ? RowMember.leadingActions : .trailingActions
            let position = index < leadingActions.count ? index : index - leadingActions.count
            log.add(
                .structure, at: "\(object.memberPath(member))[\(position)].id",
                "the row already has a swipe action \"\(action.id)\"; ids are unique across leadingActions and trailingActions")
        }
        func accessibilityText(_ member: RowMember) -> Template? {
            object.take(member).flatMap { template($0, path: object.memberPath(member), scope: scope) }
        }
        let accessibility = AccessibilityDefinition(
            label: accessibilityText(.accessibilityLabel), hint: accessibilityText(.accessibilityHint), value: accessibilityText(.accessibilityValue))
        let onEdit = object.take(RowMember.onEdit).flatMap {
            editAction($0, kind: kind, secure: secure, path: object.memberPath(RowMember.onEdit), scope: scope)
        }
        let mode: DateMode? =
            if case .template(let template)? = fields["mode"], kind == "datePicker" {
                DateMode(rawValue: template.evaluate(EvaluationContext(state: SessionState())))
            } else { nil }
        let validate =
            object.take(RowMember.validate).map { value in
                kind.map { validationRules(value, kind: $0, mode: mode, path: object.memberPath(RowMember.validate), scope: scope) } ?? []
            } ?? []
        object.reportUnread(log: &log, hints: Self.rowMemberHints)
        guard let id, let kind, Self.builtInRowFields[kind] != nil || RowContent.inputKinds.contains(kind) || kinds[kind] != nil else { return nil }
        func row(_ kind: String, _ fields: [String: FieldSource], summarizing inputKind: String? = nil, fallbacks: [RowDefinition] = []) -> RowDefinition {
            RowDefinition(
                id: id, forEach: forEach, kind: kind, fields: fields, visibleWhen: visibleWhen, enabledWhen: enabledWhen,
                options: options, accessory: accessory, height: height, estimatedHeight: estimatedHeight, onSelect: onSelect,
                onSwitch: onSwitch, onDelete: onDelete, onEdit: inputKind == nil ? onEdit : nil, validate: inputKind == nil ? validate : [],
                summarizedInputKind: inputKind,
                path: object.path, fallbacks: fallbacks, selection: selection, onMove: onMove, leadingActions: leadingActions,
                trailingActions: trailingActions, accessibility: accessibility)
        }
        if RowContent.inputKinds.contains(kind) {
            return row(kind, fields, fallbacks: [row(Self.inputFallbackKind, fields, summarizing: kind)])
        }
        return row(kind, fields, fallbacks: fallbackChain(of: kind, fields: fields).map { row($0.kind, $0.fields) })
    }

    /// `onMove: {"move": LIST}`, on a `forEach` row over `LIST` without `sort` (a drag
    /// could not change an order a sort imposes).
    private mutating func moveAction(_ value: JSONValue, path: String, forEach: String?, sorted: Bool) -> String? {
        guard case .object(let object) = value, object.keys == ["move"], case .string(let list)? = object["move"] else {
            log.add(.structure, at: path, "onMove is {\"move\": LIST}: a drag of the row reorders the items of LIST, the list the row repeats over")
            return nil
        }
        guard let forEach else {
            log.add(.structure, at: path, "only a row with \"forEach\" can be moved: a drag reorders the items of its list")
            return nil
        }
        guard list == forEach else {
            log.add(.typeMismatch, at: "\(path).move", "this row repeats over \"\(forEach)\"; a drag can only reorder \"\(forEach)\"")
            return nil
        }
        guard !sorted else {
            log.add(.structure, at: path, "this row's items are ordered by its \"sort\", so a drag cannot reorder them; remove \"sort\" or \"onMove\"")
            return nil
        }
        return list
    }

    /// A row's `leadingActions` or `trailingActions`: `[{"id", "title", "style"?,
    /// "visibleWhen"?, "onAction"}]`.
    private mutating func readSwipeActions(_ object: inout DefinitionObject, _ member: RowMember, scope: ExpressionScope) -> [SwipeActionDefinition] {
        guard let value = object.take(member) else { return [] }
        let path = object.memberPath(member)
        guard case .array(let elements) = value else {
            log.wrongType(at: path, expected: "a list of swipe actions, like [{\"id\": \"archive\", \"title\": \"Archive\", \"onAction\": ...}]", found: value)
            return []
        }
        var result: [SwipeActionDefinition] = []
        for (index, element) in elements.enumerated() {
            guard var action = DefinitionObject(element, path: "\(path)[\(index)]", log: &log) else { continue }
            let id = action.requireString("id", log: &log)
            if let id, id.isEmpty { log.add(.structure, at: action.memberPath("id"), "a swipe action's id must be a non-empty string") }
            let title = action.require("title", log: &log).flatMap { template($0, path: action.memberPath("title"), scope: scope) }
            let style = action.optionalEnumeration("style", as: SwipeAction.Style.self, log: &log) ?? .normal
            let visibleWhen = action.take("visibleWhen").flatMap { expression($0, type: .bool, path: action.memberPath("visibleWhen"), scope: scope) }
            let onAction = action.require("onAction", log: &log).flatMap { actions($0, path: action.memberPath("onAction"), scope: scope) }
            action.reportUnread(log: &log, hints: [:])
            if let id, !id.isEmpty, let title, let onAction {
                result.append(SwipeActionDefinition(id: id, title: title, style: style, visibleWhen: visibleWhen, onAction: onAction))
            }
        }
        return result
    }

    /// A `forEach` row's `filter`, `sort` and `limit`; `nil` when it has none.
    private mutating func readItemSelection(_ object: inout DefinitionObject, forEach: String?, scope: ExpressionScope) -> ItemSelection? {
        let members = [RowMember.filter, .sort, .limit].filter { object.take($0) != nil }
        guard let first = members.first else { return nil }
        guard forEach != nil else {
            log.add(.structure, at: object.memberPath(first), "\"\(first.rawValue)\" chooses among the items of a \"forEach\"; this row has none")
            return nil
        }
        let filter = object.take(RowMember.filter).flatMap { expression($0, type: .bool, path: object.memberPath(RowMember.filter), scope: scope) }
        // The limit counts the items, so it reads no item of them: on an item screen, `item`
        // in it is the screen's, as outside `forEach` rows.
        var limitScope = stateScope
        limitScope.withoutItem = "\"limit\" counts the items, so it reads none of them: 'item' is not defined in it"
        let limit = object.take(RowMember.limit).flatMap { expression($0, type: .number, path: object.memberPath(RowMember.limit), scope: limitScope) }
        let sort = object.take(RowMember.sort).flatMap { itemSort($0, path: object.memberPath(RowMember.sort), scope: scope) }
        return ItemSelection(filter: filter, sort: sort, limit: limit)
    }

    /// `{"by": EXPRESSION, "order": "ascending" | "descending"}`; ascending when `order` is
    /// left out.
    private mutating func itemSort(_ value: JSONValue, path: String, scope: ExpressionScope) -> ItemSort? {
        let usage = "\"sort\" is {\"by\": EXPRESSION, \"order\": \"ascending\" or \"descending\"}, like {\"by\": \"item.date\", \"order\": \"descending\"}"
        guard case .object(let members) = value, let by = members["by"], members.keys.allSatisfy({ $0 == "by" || $0 == "order" }) else {
            log.add(.structure, at: path, usage)
            return nil
        }
        var order = ItemSort.Order.ascending
        if let written = members["order"] {
            guard case .string(let name) = written, let chosen = ItemSort.Order(rawValue: name) else {
                log.add(.structure, at: "\(path).order", usage)
                return nil
            }
            order = chosen
        }
        guard case .string(let text) = by else {
            log.wrongType(at: "\(path).by", expected: "an expression over the item, such as \"item.name\"", found: by)
            return nil
        }
        do {
            return ItemSort(by: try Expression.compile(text, scope: scope), order: order)
        } catch {
            log.add(error, at: "\(path).by")
            return nil
        }
    }

    private mutating func readForEach(_ object: inout DefinitionObject) -> String? {
        guard let value = object.take(RowMember.forEach) else { return nil }
        let path = object.memberPath(RowMember.forEach)
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
