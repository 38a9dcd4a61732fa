extension DefinitionReader {
    /// The most steps a slider or stepper may have between its bounds: 2^53, past which a
    /// number no longer tells one step from the next.
    static let maxSteps = 9_007_199_254_740_992.0

    /// The fields of each input kind that are templates (strings) or expressions (numbers)
    /// over state: name, type, required. Each kind's value field is among them.
    static let inputValueFields: [String: [(name: String, type: ScalarType, required: Bool)]] = [
        "textField": [("title", .string, true), ("text", .string, true), ("placeholder", .string, false)],
        "slider": [("title", .string, false), ("value", .number, true)],
        "stepper": [("title", .string, true), ("value", .number, true)],
        "picker": [("title", .string, true), ("selected", .string, true)],
        "segmented": [("title", .string, false), ("selected", .string, true)],
        "datePicker": [("title", .string, true), ("value", .string, true)],
    ]

    /// An input row's fields; its options (for a choice); whether it is a secure text field.
    ///
    /// Besides the templates and expressions of ``inputValueFields``, each kind has fields
    /// that are literals, checked here: a text field's `contentType`, `secure`, `multiline`
    /// and `maxLength`; a slider's and stepper's `min`, `max` and `step`; a date picker's
    /// `mode`, `min` and `max`. They are kept as constant sources, so that a row renders
    /// every field the same way.
    mutating func readInputFields(
        _ kind: String, _ object: inout DefinitionObject, scope: ExpressionScope
    ) -> (fields: [String: FieldSource], options: ChoiceOptions?, secure: Bool) {
        var valueFields = Self.inputValueFields[kind] ?? []
        var fields: [String: FieldSource] = [:]
        var options: ChoiceOptions?
        var secure = false
        switch kind {
        case "textField":
            let contentType = object.optionalEnumeration("contentType", as: TextContentType.self, log: &log) ?? .text
            secure = contentType.isSecure(declared: literalBool(&object, "secure"))
            fields["contentType"] = .template(Template(constant: contentType.rawValue))
            fields["secure"] = .expression(Expression(constant: .bool(secure)))
            fields["multiline"] = .expression(Expression(constant: .bool(literalBool(&object, "multiline") ?? false)))
            if let maxLength = literalNumber(&object, "maxLength", required: false) {
                if maxLength >= 1, maxLength == maxLength.rounded(), maxLength <= Double(Int32.max) {
                    fields["maxLength"] = .expression(Expression(constant: .number(maxLength)))
                } else {
                    log.add(.structure, at: object.memberPath("maxLength"), "maxLength is a whole number of characters, at least 1")
                }
            }
            if secure {
                valueFields.removeAll { $0.name == "text" }
                if object.take("text") != nil {
                    log.add(
                        .structure, at: object.memberPath("text"),
                        "a secure text field shows no value and stores none; remove \"text\" (its value reaches the backend only with a submit)")
                }
            }
        case "slider", "stepper":
            let isStepper = kind == "stepper"
            let min = literalNumber(&object, "min", required: true)
            let max = literalNumber(&object, "max", required: true)
            let step = literalNumber(&object, "step", required: false) ?? (isStepper ? 1 : 0)
            if let min, let max, min > max {
                log.add(.structure, at: object.memberPath("min"), "min (\(Template.text(of: .number(min)))) is above max (\(Template.text(of: .number(max))))")
            } else if let min, let max, !(max - min).isFinite {
                // The steps are counted from min: past the largest number, none can be.
                log.add(.structure, at: object.memberPath("min"), "max - min is past the largest number; choose bounds closer together")
            }
            if isStepper ? step <= 0 : step < 0 {
                log.add(
                    .structure, at: object.memberPath("step"),
                    isStepper ? "a stepper's step is above 0" : "a slider's step is 0 (continuous) or above")
            } else if step > 0, let min, let max, min <= max, !((max - min) / step <= Self.maxSteps) {
                log.add(
                    .structure, at: object.memberPath("step"),
                    "there are more steps between min and max than numbers can tell apart (at most 2^53); choose a larger step")
            }
            for (name, value) in [("min", min), ("max", max), ("step", step)] {
                if let value { fields[name] = .expression(Expression(constant: .number(value))) }
            }
        case "picker", "segmented":
            options = choiceOptions(&object, scope: scope)
        case "datePicker":
            let mode = object.optionalEnumeration("mode", as: DateMode.self, log: &log) ?? .date
            fields["mode"] = .template(Template(constant: mode.rawValue))
            let bounds = ["min", "max"].map { name in literalDate(&object, name, mode: mode) }
            if let min = bounds[0], let max = bounds[1], min > max {
                log.add(.structure, at: object.memberPath("min"), "min (\(min)) is after max (\(max))")
            }
            for (name, value) in zip(["min", "max"], bounds) {
                if let value { fields[name] = .template(Template(constant: value)) }
            }
        default:
            break
        }
        fields.merge(readFields(&object, valueFields, scope: scope)) { _, read in read }
        return (fields, options, secure)
    }

    /// `onEdit: {"set": KEY}` stores the edited value in a key of the kind's state type, or
    /// with `{"set": "item.FIELD"}` in a field of that type of the row's (or the screen's)
    /// item; an action or a list of them runs with the expression `value`, the edited value,
    /// of that type. They may not ask the backend: an edit is sent as the user types.
    mutating func editAction(_ value: JSONValue, kind: String?, secure: Bool, path: String, scope: ExpressionScope) -> EditAction? {
        guard let kind else { return nil }
        guard let type = RowContent.inputStateTypes[kind] else {
            log.add(.structure, at: path, "only input rows (\(RowContent.inputKinds.joined(separator: ", "))) have \"onEdit\"; remove it")
            return nil
        }
        guard !secure else {
            log.add(
                .structure, at: path,
                "a secure text field stores nothing; remove \"onEdit\" (its value reaches the backend only with a submit)")
            return nil
        }
        let set = ActionName.set.rawValue
        guard case .object(let object) = value, object.keys == [set], case .string(let key)? = object[set] else {
            var editScope = scope
            editScope.editedValue = type
            guard let actions = actions(value, path: path, scope: editScope) else { return nil }
            guard !actions.contains(where: \.isCall) else {
                log.add(
                    .structure, at: path,
                    "onEdit cannot \"call\" the backend: edits are sent as the user types. Call it from a button's onSelect, after a submit")
                return nil
            }
            // A submit's values are applied as edits before its own actions: an edit's
            // submit would stop them, or stand for the button's.
            guard !actions.contains(where: { $0.submittedForm != nil }) else {
                log.add(.structure, at: path, "onEdit cannot \"submit\" a form: submit it from a button's onSelect")
                return nil
            }
            return .actions(actions)
        }
        if let field = Action.itemField(of: key) {
            var editScope = scope
            editScope.editedValue = type
            return itemFieldEdit(key: key, field: field, kind: kind, type: type, path: "\(path).\(set)", scope: editScope)
        }
        switch stateTypes[key] {
        case nil:
            log.add(.unknownStateKey, at: "\(path).\(set)", "unknown state key \"\(key)\"; declare it under \"state\"")
            return nil
        case .scalar(type)?:
            return .set(key)
        case let other?:
            log.add(.typeMismatch, at: "\(path).\(set)", "\"\(key)\" is a \(other), but a \(kind) stores a \(type.rawValue)")
            return nil
        }
    }

    /// `{"set": "item.FIELD"}`: the same as the action `{"set": {"item.FIELD": value}}`, as
    /// a switch's `{"set": "item.FIELD"}` is; the field has the kind's state type.
    private mutating func itemFieldEdit(
        key: String, field: String, kind: String, type: ScalarType, path: String, scope: ExpressionScope
    ) -> EditAction? {
        guard let item = scope.item, field != "id", item.schema.type(of: field) == type else {
            let problem =
                if let item = scope.item {
                    field == "id"
                        ? "an item's id never changes; it is its identity"
                        : "the items of \"\(item.list)\" have no \(type.rawValue) field \"\(field)\"; a \(kind) stores a \(type.rawValue)"
                } else {
                    "\"\(key)\" is a field of an item: only a row with \"forEach\", or a screen with \"item\", has one"
                }
            log.add(.typeMismatch, at: path, problem)
            return nil
        }
        // The edited value as it is: a string through a template of `value` alone, a number
        // through the expression `value`.
        let editedValue: JSONValue = .string(type == .string ? "{{value}}" : "value")
        guard let source = source(editedValue, type: type, path: path, scope: scope) else { return nil }
        return .actions([.set([(key: key, value: source)])])
    }

    /// `options`: a list of `{"id", "title"}` with distinct, non-empty ids, or
    /// `{"forEach": LIST, "id": TEMPLATE, "title": TEMPLATE}` over a list key's items.
    private mutating func choiceOptions(_ object: inout DefinitionObject, scope: ExpressionScope) -> ChoiceOptions? {
        guard let value = object.require("options", log: &log) else { return nil }
        let path = object.memberPath("options")
        switch value {
        case .array(let elements):
            var options: [(id: String, title: Template)] = []
            var ids: Set<String> = []
            for (index, element) in elements.enumerated() {
                let elementPath = "\(path)[\(index)]"
                guard case .object(let option) = element, option.keys.sorted() == ["id", "title"],
                    case .string(let id)? = option["id"], let titleValue = option["title"], !id.isEmpty
                else {
                    log.add(.structure, at: elementPath, "an option is {\"id\": ID, \"title\": TEMPLATE} with a non-empty id")
                    continue
                }
                guard let title = template(titleValue, path: "\(elementPath).title", scope: scope) else { continue }
                guard ids.insert(id).inserted else {
                    log.add(.structure, at: "\(elementPath).id", "option id \"\(id)\" is used twice; an edit names the option by its id")
                    continue
                }
                options.append((id, title))
            }
            if elements.isEmpty { log.add(.structure, at: path, "a choice needs at least one option") }
            return .fixed(options)
        case .object:
            guard var members = DefinitionObject(value, path: path, log: &log) else { return nil }
            let list = members.requireString("forEach", log: &log)
            let idValue = members.require("id", log: &log)
            let titleValue = members.require("title", log: &log)
            members.reportUnread(log: &log)
            guard let list else { return nil }
            guard case .list(let schema)? = stateTypes[list] else {
                log.add(.typeMismatch, at: "\(path).forEach", "\"\(list)\" is not a list state key; options repeat over a list of records")
                return nil
            }
            let itemScope = ExpressionScope(state: scope.state, item: (list, schema), strings: scope.strings)
            guard let idValue, let titleValue, let id = template(idValue, path: "\(path).id", scope: itemScope),
                let title = template(titleValue, path: "\(path).title", scope: itemScope)
            else { return nil }
            // As a repeated row's id: an edit names the option by it, so no two items, and no
            // item, may give an empty or a shared one.
            guard let affixes = id.singleExpressionAffixes, case .itemField("id", _) = affixes.expression.node else {
                log.add(
                    .structure, at: "\(path).id",
                    "an option's id must be fixed text around one {{item.id}} and no other {{ }} part, like \"{{item.id}}\" or \"country-{{item.id}}\", so that every item gives its own"
                )
                return nil
            }
            return .forEach(list: list, id: id, title: title)
        default:
            log.wrongType(at: path, expected: "a list of options or {\"forEach\": LIST, \"id\": ..., \"title\": ...}", found: value)
            return nil
        }
    }

    private mutating func literalBool(_ object: inout DefinitionObject, _ name: String) -> Bool? {
        guard let value = object.take(name) else { return nil }
        guard case .bool(let flag) = value else {
            log.wrongType(at: object.memberPath(name), expected: "true or false", found: value)
            return nil
        }
        return flag
    }

    private mutating func literalNumber(_ object: inout DefinitionObject, _ name: String, required: Bool) -> Double? {
        guard let value = required ? object.require(name, log: &log) : object.take(name) else { return nil }
        guard case .number(let number) = value else {
            log.wrongType(at: object.memberPath(name), expected: "a number", found: value)
            return nil
        }
        return number
    }

    private mutating func literalDate(_ object: inout DefinitionObject, _ name: String, mode: DateMode) -> String? {
        guard let value = object.take(name) else { return nil }
        guard case .string(let text) = value, mode.accepts(text) else {
            log.add(.structure, at: object.memberPath(name), "\(value.canonicalText) is not a \(mode.rawValue) like \(mode.example)")
            return nil
        }
        return text
    }
}
