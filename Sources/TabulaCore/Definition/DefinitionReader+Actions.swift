/// The actions a row's `onSelect` and `onDelete` perform: each is an object with one
/// member, named by one of these.
enum ActionName: String, CaseIterable {
    case toggle, set, navigate, open, remove, submit, reset, call, append, back
}

extension DefinitionReader {

    /// One action object, or an array of them performed in order.
    mutating func actions(_ value: JSONValue, path: String, scope: ExpressionScope) -> [Action]? {
        if case .array(let elements) = value {
            guard !elements.isEmpty else {
                log.add(.structure, at: path, "an action list needs at least one action")
                return nil
            }
            var result: [Action] = []
            for (index, element) in elements.enumerated() {
                if let action = action(element, path: "\(path)[\(index)]", scope: scope) { result.append(action) }
            }
            guard result.count == elements.count else { return nil }
            if result.lazy.filter(\.isCall).count > 1 {
                log.add(.structure, at: path, "an action list asks the backend at most once: keep one \"call\" and let the backend do the rest")
                return nil
            }
            return result
        }
        return action(value, path: path, scope: scope).map { [$0] }
    }

    private mutating func action(_ value: JSONValue, path: String, scope: ExpressionScope) -> Action? {
        // The one action with a second member: {"navigate": SCREEN, "item": TEMPLATE}.
        if case .object(let object) = value, object.count == 2, let target = object[ActionName.navigate.rawValue], let item = object["item"] {
            return navigateAction(target, item: item, path: path, scope: scope)
        }
        guard case .object(let object) = value, object.count == 1, let key = object.keys.first,
            let argument = object[key], let name = ActionName(rawValue: key)
        else {
            let names = ActionName.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            log.add(.structure, at: path, "an action is an object with exactly one of \(names)")
            return nil
        }
        let argumentPath = "\(path).\(key)"
        switch name {
        case .toggle:
            guard let key = stateKey(argument, path: argumentPath, expected: .scalar(.bool), purpose: "toggle flips a bool") else { return nil }
            return .toggle(key)
        case .set:
            return setAction(argument, path: argumentPath, scope: scope)
        case .navigate:
            return navigateAction(argument, item: nil, path: path, scope: scope)
        case .back:
            guard argument == .bool(true) else {
                log.add(.structure, at: argumentPath, "\"back\" is {\"back\": true}: the client returns to the screen it came from")
                return nil
            }
            return .back
        case .open:
            guard let url = template(argument, path: argumentPath, scope: scope) else { return nil }
            let start = url.leadingText
            if let refusal = urlSchemes?.verdict(onTemplateStarting: start.text, isWhole: start.isWhole), !refusal.isEmpty {
                log.add(.urlScheme, at: argumentPath, refusal)
                return nil
            }
            if urlSchemes != nil, url.constantTexts.contains(where: URLSchemes.hasControlCharacter) {
                log.add(.urlScheme, at: argumentPath, URLSchemes.controlCharacterRefusal)
                return nil
            }
            return .open(url)
        case .remove:
            return removeAction(argument, path: argumentPath, scope: scope)
        case .submit, .reset:
            guard case .string(let form) = argument, !form.isEmpty else {
                log.wrongType(at: argumentPath, expected: "the name of a form of this screen", found: argument)
                return nil
            }
            formReferences.append((form, argumentPath))
            return name == .submit ? .submit(form) : .reset(form)
        case .append:
            return appendAction(argument, path: argumentPath, scope: scope)
        case .call:
            guard case .string(let action) = argument, Self.isPathSegment(action) else {
                log.add(
                    .structure, at: argumentPath,
                    "\"call\" names the backend's action, which becomes a URL path segment: letters, digits, \"-\", \".\", \"_\" and \"~\", like \"sign-in\"")
                return nil
            }
            return .call(action)
        }
    }

    /// `{"navigate": SCREEN}`, or with `"item": TEMPLATE` to an item screen (checked once
    /// every screen is read).
    private mutating func navigateAction(_ target: JSONValue, item: JSONValue?, path: String, scope: ExpressionScope) -> Action? {
        let targetPath = "\(path).\(ActionName.navigate.rawValue)"
        guard case .string(let screen) = target, !screen.isEmpty else {
            log.wrongType(at: targetPath, expected: "a screen id", found: target)
            return nil
        }
        var itemID: Template?
        if let item {
            guard let template = template(item, path: "\(path).item", scope: scope) else { return nil }
            itemID = template
        }
        navigations.append((screen, targetPath, item != nil))
        return .navigate(screen, item: itemID)
    }

    /// `{"append": {"to": LIST, "item": {FIELD: VALUE, ...}, "at": "end" | "start"}}`: every
    /// field of the list's items must be given (`id` may be).
    private mutating func appendAction(_ argument: JSONValue, path: String, scope: ExpressionScope) -> Action? {
        let usage = "\"append\" is {\"to\": LIST, \"item\": {FIELD: VALUE, ...}, \"at\": \"end\" or \"start\"}"
        guard case .object(let object) = argument, object.keys.allSatisfy(["to", "item", "at"].contains) else {
            log.add(.structure, at: path, usage)
            return nil
        }
        guard case .string(let list)? = object["to"] else {
            log.add(.structure, at: "\(path).to", "\(usage); \"to\" names a list state key")
            return nil
        }
        guard case .list(let schema)? = stateTypes[list] else {
            log.add(
                stateTypes[list] == nil ? .unknownStateKey : .typeMismatch, at: "\(path).to",
                "\"\(list)\" is not a list state key; declare it under \"state\" as a list of records")
            return nil
        }
        var place = ItemAppend.Place.end
        if let at = object["at"] {
            guard case .string(let name) = at, let chosen = ItemAppend.Place(rawValue: name) else {
                log.add(.structure, at: "\(path).at", "\"at\" is \"end\" (the default) or \"start\"")
                return nil
            }
            place = chosen
        }
        guard case .object(let values)? = object["item"] else {
            log.add(.structure, at: "\(path).item", "\(usage); \"item\" gives the new item's fields")
            return nil
        }
        var id: Template?
        var fields: [(name: String, value: FieldSource)] = []
        var complete = true
        for (name, value) in values.pairs {
            let fieldPath = "\(path).item.\(name)"
            if name == "id" {
                id = template(value, path: fieldPath, scope: scope)
                complete = complete && id != nil
                continue
            }
            guard let type = schema.type(of: name) else {
                let known = (["id"] + schema.fields.keys.sorted()).joined(separator: ", ")
                log.add(.typeMismatch, at: fieldPath, "the items of \"\(list)\" have no field \"\(name)\"; they have: \(known)")
                complete = false
                continue
            }
            guard let source = source(value, type: type, path: fieldPath, scope: scope) else {
                complete = false
                continue
            }
            fields.append((name, source))
        }
        let missing = schema.fields.keys.sorted().filter { values[$0] == nil }
        if !missing.isEmpty {
            log.add(
                .structure, at: "\(path).item",
                "the new item of \"\(list)\" needs every field but \"id\"; give \(missing.map { "\"\($0)\"" }.joined(separator: ", "))")
            return nil
        }
        return complete ? .append(ItemAppend(list: list, id: id, fields: fields, place: place)) : nil
    }

    /// A non-empty URL path segment that needs no escaping (RFC 3986's unreserved
    /// characters), and neither `.` nor `..`, which a URL would resolve away.
    static func isPathSegment(_ name: String) -> Bool {
        guard !name.isEmpty, name != ".", name != ".." else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
            default: false
            }
        }
    }

    private mutating func setAction(_ argument: JSONValue, path: String, scope: ExpressionScope) -> Action? {
        guard case .object(let assignments) = argument, !assignments.isEmpty else {
            log.add(.structure, at: path, "\"set\" takes an object of state keys and their new values, like {\"appearance\": \"dark\"}")
            return nil
        }
        var result: [(key: String, value: FieldSource)] = []
        for (key, value) in assignments.pairs {
            let keyPath = "\(path).\(key)"
            if let field = Action.itemField(of: key) {
                guard let item = scope.item else {
                    log.add(.structure, at: keyPath, "\"\(key)\" sets a field of the row's item, so it only works in a row with \"forEach\"")
                    continue
                }
                guard field != "id", let type = item.schema.type(of: field) else {
                    let fields = item.schema.fields.keys.sorted().joined(separator: ", ")
                    log.add(
                        .typeMismatch, at: keyPath,
                        field == "id"
                            ? "an item's id never changes; it is its identity"
                            : "the items of \"\(item.list)\" have no field \"\(field)\"; they have: \(fields)")
                    continue
                }
                if let source = source(value, type: type, path: keyPath, scope: scope) { result.append((key, source)) }
                continue
            }
            switch stateTypes[key] {
            case nil:
                log.add(.unknownStateKey, at: keyPath, "unknown state key \"\(key)\"; declare it under \"state\"")
            case .list?:
                log.add(.typeMismatch, at: keyPath, "\"\(key)\" is a list and cannot be set; rows remove their items with \"remove\"")
            case .scalar(let type)?:
                if let source = source(value, type: type, path: keyPath, scope: scope) { result.append((key, source)) }
            }
        }
        return result.count == assignments.count ? .set(result) : nil
    }

    private mutating func removeAction(_ argument: JSONValue, path: String, scope: ExpressionScope) -> Action? {
        guard case .string(let list) = argument else {
            log.wrongType(at: path, expected: "the name of the list to remove the item from", found: argument)
            return nil
        }
        guard let item = scope.item else {
            log.add(
                .removeOutsideForEach, at: path,
                "\"remove\" takes the row's item out of its list, so it only works in a row with \"forEach\"")
            return nil
        }
        guard item.list == list else {
            log.add(.typeMismatch, at: path, "this row repeats over \"\(item.list)\"; it can only remove its own item, from \"\(item.list)\"")
            return nil
        }
        return .remove(list)
    }

    /// `onSwitch: {"set": key}` stores the switch's new value in a bool key, or in a `forEach`
    /// row with `{"set": "item.FIELD"}`, in a bool field of the row's item.
    mutating func switchAction(_ value: JSONValue, path: String, scope: ExpressionScope) -> SwitchAction? {
        let set = ActionName.set.rawValue
        guard case .object(let object) = value, object.keys == [set], let argument = object[set] else {
            log.add(.structure, at: path, "onSwitch is {\"set\": KEY}: it stores the switch's new value in a bool state key")
            return nil
        }
        if case .string(let key) = argument, let field = Action.itemField(of: key) {
            guard let item = scope.item, item.schema.type(of: field) == .bool, field != "id" else {
                log.add(
                    .switchOnNonBool, at: "\(path).\(set)",
                    scope.item == nil
                        ? "\"\(key)\" is a field of a row's item: only a row with \"forEach\" has one"
                        : "the items of \"\(scope.item?.list ?? "")\" have no bool field \"\(field)\"; a switch stores a bool")
                return nil
            }
            return SwitchAction(key: key)
        }
        guard let key = stateKey(argument, path: "\(path).\(set)", expected: .scalar(.bool), purpose: "a switch stores a bool") else { return nil }
        return SwitchAction(key: key)
    }

    /// A declared state key of the expected type, or a problem saying what is wrong.
    private mutating func stateKey(_ value: JSONValue, path: String, expected: StateType, purpose: String) -> String? {
        guard case .string(let key) = value else {
            log.wrongType(at: path, expected: "a state key name", found: value)
            return nil
        }
        guard let type = stateTypes[key] else {
            log.add(.unknownStateKey, at: path, "unknown state key \"\(key)\"; declare it under \"state\"")
            return nil
        }
        guard type == expected else {
            let kind: DefinitionProblem.Kind = purpose.hasPrefix("a switch") ? .switchOnNonBool : .typeMismatch
            log.add(kind, at: path, "\"\(key)\" is a \(type), but \(purpose)")
            return nil
        }
        return key
    }
}
