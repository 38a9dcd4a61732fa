/// The checks a `validate` rule may make: each rule is an object with one of these and a
/// `message`.
enum RuleName: String, CaseIterable {
    case required, minLength, maxLength, pattern, min, max, equals, when
}

extension DefinitionReader {
    /// The input kinds each check applies to.
    static let ruleKinds: [RuleName: Set<String>] = [
        .required: Set(RowContent.inputKinds),
        .minLength: ["textField"], .maxLength: ["textField"], .pattern: ["textField"],
        .min: ["textField", "slider", "stepper", "datePicker"], .max: ["textField", "slider", "stepper", "datePicker"],
        .equals: Set(RowContent.inputKinds), .when: Set(RowContent.inputKinds),
    ]

    /// `validate: [RULE, ...]` of an input row of `kind` (`mode`: a date picker's).
    mutating func validationRules(_ value: JSONValue, kind: String, mode: DateMode?, path: String, scope: ExpressionScope) -> [ValidationRule] {
        guard RowContent.inputKinds.contains(kind) else {
            log.add(.structure, at: path, "only input rows (\(RowContent.inputKinds.joined(separator: ", "))) have \"validate\"; remove it")
            return []
        }
        guard case .array(let elements) = value else {
            log.wrongType(at: path, expected: "a list of rules, like [{\"required\": true, \"message\": \"Enter your name\"}]", found: value)
            return []
        }
        var rules: [ValidationRule] = []
        var bounds: [RuleName: (value: FieldValue, path: String)] = [:]
        for (index, element) in elements.enumerated() {
            let rulePath = "\(path)[\(index)]"
            guard let rule = validationRule(element, kind: kind, mode: mode, path: rulePath, scope: scope) else { continue }
            switch rule.check {
            case .min(let bound): bounds[.min] = (bound, rulePath)
            case .max(let bound): bounds[.max] = (bound, rulePath)
            default: break
            }
            rules.append(rule)
        }
        if let min = bounds[.min], let max = bounds[.max], Self.isAbove(min.value, max.value) {
            log.add(.structure, at: "\(min.path).min", "min (\(Template.text(of: min.value))) is above max (\(Template.text(of: max.value)))")
        }
        return rules
    }

    private static func isAbove(_ first: FieldValue, _ second: FieldValue) -> Bool {
        switch (first, second) {
        case (.number(let a), .number(let b)): a > b
        case (.string(let a), .string(let b)): a > b
        default: false
        }
    }

    private mutating func validationRule(_ value: JSONValue, kind: String, mode: DateMode?, path: String, scope: ExpressionScope) -> ValidationRule? {
        let names = RuleName.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard case .object(let object) = value else {
            log.add(.structure, at: path, "a rule is an object with one of \(names) and a \"message\"")
            return nil
        }
        let checks = object.keys.compactMap(RuleName.init(rawValue:))
        let unknown = object.keys.filter { $0 != "message" && RuleName(rawValue: $0) == nil }
        guard checks.count == 1, let name = checks.first, unknown.isEmpty, let argument = object[name.rawValue] else {
            log.add(.structure, at: path, "a rule is an object with exactly one of \(names) and a \"message\"")
            return nil
        }
        let argumentPath = "\(path).\(name.rawValue)"
        let message: Template?
        if let text = object["message"] {
            message = template(text, path: "\(path).message", scope: scope)
        } else {
            log.add(.structure, at: path, "a rule needs a \"message\": what the user reads under the row while the rule fails")
            message = nil
        }
        guard Self.ruleKinds[name]?.contains(kind) == true else {
            let kinds = RowContent.inputKinds.filter { Self.ruleKinds[name]?.contains($0) == true }
            log.add(.structure, at: argumentPath, "a \(kind) has no \"\(name.rawValue)\" rule; it is for \(kinds.joined(separator: ", "))")
            return nil
        }
        let check: ValidationRule.Check?
        switch name {
        case .required:
            guard argument == .bool(true) else {
                log.add(.structure, at: argumentPath, "write {\"required\": true}; a row without it may stay empty")
                return nil
            }
            check = .required
        case .minLength, .maxLength:
            guard case .number(let number) = argument, number >= 0, number == number.rounded(), number <= Double(Int32.max) else {
                log.add(.structure, at: argumentPath, "\(name.rawValue) is a whole number of characters, at least 0")
                return nil
            }
            check = name == .minLength ? .minLength(Int(number)) : .maxLength(Int(number))
        case .pattern:
            guard case .string(let source) = argument else {
                log.wrongType(at: argumentPath, expected: "a regular expression (Swift Regex syntax) as a string", found: argument)
                return nil
            }
            do {
                let rule = try PatternRule(source)
                if rule.backtracks {
                    log.warn(
                        .structure, at: argumentPath,
                        "this pattern is matched by Swift's Regex, which backtracks: a value a user types can make it take seconds or more (nested counts, like (a+)+, on a long line of one letter). Without back references, lookaround, \\b, named groups, options, anchors inside, non-ASCII characters or counts past a few hundred, a pattern is matched in time linear in the value"
                    )
                }
                check = .pattern(rule)
            } catch {
                log.add(.structure, at: argumentPath, "not a regular expression Swift's Regex reads: \(error)")
                return nil
            }
        case .min, .max:
            check = bound(argument, name: name, mode: mode, path: argumentPath)
        case .equals:
            guard case .string(let row) = argument, !row.isEmpty else {
                log.wrongType(at: argumentPath, expected: "the id of another input row of this screen", found: argument)
                return nil
            }
            equalsReferences.append((row, argumentPath, kind))
            check = .equals(row: row)
        case .when:
            check = expression(argument, type: .bool, path: argumentPath, scope: scope).map(ValidationRule.Check.when)
        }
        guard let check, let message else { return nil }
        return ValidationRule(check: check, message: message)
    }

    /// A `min` or `max` rule's bound: a number, or for a date picker a value in its mode's
    /// format.
    private mutating func bound(_ argument: JSONValue, name: RuleName, mode: DateMode?, path: String) -> ValidationRule.Check? {
        let value: FieldValue
        switch (argument, mode) {
        case (.number(let number), nil):
            value = .number(number)
        case (.string(let text), let mode?) where mode.accepts(text):
            value = .string(text)
        default:
            let expected = mode.map { "a \($0.rawValue) like \($0.example)" } ?? "a number"
            log.add(.structure, at: path, "\(argument.canonicalText) is not \(expected)")
            return nil
        }
        return name == .min ? .min(value) : .max(value)
    }

    /// Checks each `equals` rule's row, once every row of the screen is read: it must be
    /// another input row of the screen, with a fixed id, whose value is of the same type (a
    /// text never equals a number: the rule could never pass).
    mutating func checkEqualsReferences(_ sections: [SectionDefinition]) {
        var inputRows: [String: (path: String, kind: String)] = [:]
        for row in sections.flatMap(\.rows) where row.forEach == nil && row.isInput {
            inputRows[row.id.evaluate(EvaluationContext(state: SessionState()))] = (row.path, row.kind)
        }
        for (target, path, kind) in equalsReferences {
            guard let targetRow = inputRows[target] else {
                log.add(
                    .structure, at: path,
                    "\"\(target)\" is not an input row of this screen; equals names another input row (not repeated by forEach) by its id")
                continue
            }
            if path.hasPrefix(targetRow.path + ".") {
                log.add(.structure, at: path, "a row cannot equal itself; name another input row")
                continue
            }
            let type = RowContent.inputStateTypes[kind]
            if let targetType = RowContent.inputStateTypes[targetRow.kind], type != targetType {
                log.add(
                    .structure, at: path,
                    "\"\(target)\" is a \(targetRow.kind), whose value is a \(targetType.rawValue), and this row's is a \(type?.rawValue ?? kind): the values could never be equal; name an input row whose value is a \(type?.rawValue ?? kind)"
                )
            }
        }
    }
}
