/// The actions a row's `onSelect` and `onDelete` perform: each is an object with one
/// member, named by one of these.
enum ActionName: String, CaseIterable {
    case toggle, set, navigate, open, remove, submit, reset, call
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
            guard case .string(let target) = argument, !target.isEmpty else {
                log.wrongType(at: argumentPath, expected: "a screen id", found: argument)
                return nil
            }
            navigations.append((target, argumentPath))
            return .navigate(target)
        case .open:
            guard let url = template(argument, path: argumentPath, scope: scope) else { return nil }
            let start = url.leadingText
            if let refusal = urlSchemes?.verdict(onTemplateStarting: start.text, isWhole: start.isWhole), !refusal.isEmpty {
                log.add(.urlScheme, at: argumentPath, refusal)
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

    /// `onSwitch: {"set": key}` stores the switch's new value in a bool key.
    mutating func switchAction(_ value: JSONValue, path: String) -> SwitchAction? {
        let set = ActionName.set.rawValue
        guard case .object(let object) = value, object.keys == [set], let argument = object[set] else {
            log.add(.structure, at: path, "onSwitch is {\"set\": KEY}: it stores the switch's new value in a bool state key")
            return nil
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
