extension DefinitionReader {
    /// A field value: for a string field a template; for a bool or number field a literal
    /// or an expression string of that type (also written as one `{{ expression }}`).
    mutating func source(_ value: JSONValue, type: ScalarType, path: String, scope: ExpressionScope) -> FieldSource? {
        if type == .string {
            return template(value, path: path, scope: scope).map(FieldSource.template)
        }
        return expression(value, type: type, path: path, scope: scope).map(FieldSource.expression)
    }

    mutating func template(_ value: JSONValue, path: String, scope: ExpressionScope) -> Template? {
        guard case .string(let text) = value else {
            log.add(.typeMismatch, at: path, "expected a string (a template), found \(value.typeName)")
            return nil
        }
        var problems: [ExpressionError] = []
        guard let template = Template.compile(text, scope: scope, problems: &problems) else {
            for problem in problems { log.add(problem, at: path) }
            return nil
        }
        for key in template.messageKeys where messageUses[key] == nil { messageUses[key] = path }
        noteForms(template.stateKeys, path: path)
        return template
    }

    mutating func expression(_ value: JSONValue, type: ScalarType, path: String, scope: ExpressionScope) -> Expression? {
        switch (value, type) {
        case (.bool(let flag), .bool): return Expression(constant: .bool(flag))
        case (.number(let number), .number): return Expression(constant: .number(number))
        case (.string(let text), _):
            do {
                guard let compiled = try fieldExpression(text, type: type, path: path, scope: scope) else { return nil }
                guard compiled.type == type else {
                    log.add(.typeMismatch, at: path, column: 1, "expected a \(type.rawValue) expression, but \"\(text)\" is a \(compiled.type.rawValue)")
                    return nil
                }
                for key in compiled.messageKeys where messageUses[key] == nil { messageUses[key] = path }
                noteForms(compiled.stateKeys, path: path)
                return compiled
            } catch {
                log.add(error, at: path)
                return nil
            }
        default:
            log.add(.typeMismatch, at: path, "expected a \(type.rawValue) or an expression string, found \(value.typeName)")
            return nil
        }
    }

    /// `text` as an expression; written like a template, "{{ wifi }}" reads as "wifi". Text
    /// that parses as an expression is one, even with a '{{' inside a string literal. `nil`,
    /// with the problem logged, for braces with text or other parts around them.
    private mutating func fieldExpression(
        _ text: String, type: ScalarType, path: String, scope: ExpressionScope
    ) throws(ExpressionError) -> Expression? {
        do throws(ExpressionError) {
            return try Expression.compile(text, scope: scope)
        } catch  where text.contains("{{") {
            let whole = try Template.compile(text, scope: scope)
            guard let affixes = whole.singleExpressionAffixes,
                affixes.prefix.allSatisfy(\.isWhitespace), affixes.suffix.allSatisfy(\.isWhitespace)
            else {
                log.add(
                    .typeMismatch, at: path,
                    "a \(type.rawValue) field takes an expression such as \"wifi\", or one {{ expression }} with no text around it")
                return nil
            }
            return affixes.expression
        }
    }

    mutating func readState(_ json: JSONValue, path: String) {
        guard case .object(let object) = json else {
            log.wrongType(at: path, expected: "an object of state keys and their defaults", found: json)
            return
        }
        for (key, value) in object.pairs {
            let keyPath = "\(path).\(key)"
            guard Self.isIdentifier(key), !Self.reservedStateKeys.contains(key) else {
                log.add(.structure, at: keyPath, "state key \"\(key)\" must be a name usable in expressions (letters, digits, '_'; not item, true or false)")
                continue
            }
            if let declaration = stateDeclaration(value, path: keyPath) {
                state.append((key, declaration))
                stateTypes[key] = declaration.type
            }
        }
    }

    /// A state key's declaration: a default (`true`, `3`, `"text"`, `[records]`) whose type
    /// is the key's type, or `{"type": ..., "default": ..., "item": {field: type}}`.
    private mutating func stateDeclaration(_ value: JSONValue, path: String) -> StateDeclaration? {
        var problems: [(String, String)] = []
        let report: (String, String) -> Void = { problems.append(($0, $1)) }
        defer { for (problemPath, message) in problems { log.add(.invalidStateDefault, at: problemPath, message) } }
        switch value {
        case .bool, .number, .string:
            guard let scalar = StateType.scalar(value) else { return nil }
            return StateDeclaration(type: .scalar(scalar.scalarType), defaultValue: .scalar(scalar))
        case .array(let elements):
            // An invalid default is reported, but the key stays declared with its type so
            // that rows using it do not add misleading "unknown key" problems.
            let type = StateType.list(StateType.inferredSchema(elements))
            return StateDeclaration(type: type, defaultValue: type.decode(value, path: path, report: report) ?? .list([]))
        case .object:
            return explicitDeclaration(value, path: path, report: report)
        case .null:
            report(path, "a state key needs a default (true, a number, a string or a list of records)")
            return nil
        }
    }

    private mutating func explicitDeclaration(
        _ value: JSONValue, path: String, report: (String, String) -> Void
    ) -> StateDeclaration? {
        guard var object = DefinitionObject(value, path: path, log: &log) else { return nil }
        let typeName = object.requireString(StateDeclarationMember.type, log: &log)
        let itemValue = object.take(StateDeclarationMember.item)
        let defaultValue = object.take(StateDeclarationMember.default)
        object.reportUnread(log: &log)
        guard let typeName else { return nil }
        let type: StateType
        if let scalar = ScalarType(rawValue: typeName) {
            type = .scalar(scalar)
            if itemValue != nil { report(object.memberPath(StateDeclarationMember.item), "only lists have \"item\"") }
        } else if typeName == StateType.listTypeName {
            guard let schema = recordSchema(itemValue ?? .object(JSONObject()), path: object.memberPath(StateDeclarationMember.item)) else { return nil }
            type = .list(schema)
        } else {
            log.add(
                .structure, at: object.memberPath(StateDeclarationMember.type),
                "\"\(typeName)\" is not a state type; use one of \(StateType.typeNames.map { "\"\($0)\"" }.joined(separator: ", "))")
            return nil
        }
        guard let defaultValue else {
            let zero: StateValue = if case .scalar(let scalar) = type { .scalar(scalar.zero) } else { .list([]) }
            return StateDeclaration(type: type, defaultValue: zero)
        }
        let fallback: StateValue = if case .scalar(let scalar) = type { .scalar(scalar.zero) } else { .list([]) }
        return StateDeclaration(
            type: type, defaultValue: type.decode(defaultValue, path: object.memberPath(StateDeclarationMember.default), report: report) ?? fallback)
    }

    /// `{field: "string" | "number" | "bool"}`, as custom kinds and list items declare fields.
    mutating func recordSchema(_ value: JSONValue, path: String) -> RecordSchema? {
        guard case .object(let object) = value else {
            log.wrongType(at: path, expected: "an object of field names and types", found: value)
            return nil
        }
        var fields: [String: ScalarType] = [:]
        for (name, typeValue) in object.pairs {
            guard Self.isIdentifier(name) else {
                log.add(.structure, at: "\(path).\(name)", "field name \"\(name)\" must be letters, digits and '_'")
                continue
            }
            guard case .string(let typeName) = typeValue, let type = ScalarType(rawValue: typeName) else {
                log.add(.structure, at: "\(path).\(name)", "a field's type is \"string\", \"number\" or \"bool\"")
                continue
            }
            fields[name] = type
        }
        return RecordSchema(fields: fields)
    }

    mutating func readKinds(_ json: JSONValue, path: String) {
        guard case .object(let object) = json else {
            log.wrongType(at: path, expected: "an object of kind names and their fields", found: json)
            return
        }
        for (name, value) in object.pairs {
            let kindPath = "\(path).\(name)"
            if RowContent.builtInKinds.contains(name) || HeaderFooter.builtInKinds.contains(name) {
                log.add(.structure, at: kindPath, "\"\(name)\" is a built-in kind; give the custom kind another name")
                continue
            }
            // Short form: the fields themselves. Long form: {"fields": {...}, "fallback": {...}}
            // (a field's type is a string, so an object under "fields" is the long form).
            var fieldsJSON = value
            var fallbackJSON: JSONValue?
            var fieldsPath = kindPath
            if case .object(let members) = value, case .object? = members["fields"] {
                fieldsJSON = members["fields"] ?? value
                fallbackJSON = members["fallback"]
                fieldsPath = "\(kindPath).fields"
                for (member, _) in members.pairs where member != "fields" && member != "fallback" {
                    log.add(.structure, at: "\(kindPath).\(member)", "unknown member \"\(member)\"; a kind declares \"fields\" and an optional \"fallback\"")
                }
            }
            guard let schema = recordSchema(fieldsJSON, path: fieldsPath) else { continue }
            if let reserved = schema.fields.keys.sorted().first(where: RowMember.reservedFieldNames.contains) {
                log.add(.structure, at: "\(fieldsPath).\(reserved)", "\"\(reserved)\" is a member every row has; name the field differently")
                continue
            }
            let clashes = schema.fields.sorted { $0.key.utf8Precedes($1.key) }.compactMap { field, type in
                RowMember.builtInFieldTypes[field].flatMap { $0.contains(type) ? nil : (field, $0) }
            }
            for (field, types) in clashes {
                let allowed = types.map(\.rawValue).sorted().map { "\"\($0)\"" }.joined(separator: " or ")
                log.add(
                    .structure, at: "\(fieldsPath).\(field)",
                    types.isEmpty
                        ? "\"\(field)\" is a field of built-in kinds that a custom kind cannot declare; name the field differently"
                        : "\"\(field)\" is a field of built-in kinds, of type \(allowed) there and so in every kind; declare it so or name it differently")
            }
            if !clashes.isEmpty { continue }
            let fallback = fallbackJSON.flatMap { kindFallback($0, path: "\(kindPath).fallback") }
            kinds[name] = KindDeclaration(name: name, fields: schema.fields, fallback: fallback)
        }
        for name in kinds.keys.sorted() { checkFallback(of: name, path: "\(path).\(name).fallback") }
    }

    /// `{"kind": KIND, "fields": {FIELD OF KIND: FIELD OF THE CUSTOM KIND}}`.
    private mutating func kindFallback(_ json: JSONValue, path: String) -> KindFallback? {
        guard case .object(let object) = json else {
            log.wrongType(at: path, expected: "an object with \"kind\" and \"fields\"", found: json)
            return nil
        }
        for (member, _) in object.pairs where member != "kind" && member != "fields" {
            log.add(.structure, at: "\(path).\(member)", "unknown member \"\(member)\"; a fallback has \"kind\" and \"fields\"")
        }
        guard case .string(let kind)? = object["kind"] else {
            log.add(.structure, at: "\(path).kind", "a fallback names the kind a client gets instead: \"kind\": \"subtitle\"")
            return nil
        }
        var fields: [String: String] = [:]
        switch object["fields"] {
        case nil:
            break
        case .object(let mapping)?:
            for (target, source) in mapping.pairs {
                guard case .string(let sourceName) = source else {
                    log.add(.structure, at: "\(path).fields.\(target)", "name the field of the custom kind whose value \"\(target)\" takes")
                    continue
                }
                fields[target] = sourceName
            }
        case let other?:
            log.wrongType(at: "\(path).fields", expected: "an object of the fallback kind's fields and the custom kind's fields they take", found: other)
        }
        return KindFallback(kind: kind, fields: fields)
    }

    /// Checks a declared kind's fallback against the kinds of this file: its kind is a
    /// built-in row kind or another declared kind, each field it fills is one of that kind's
    /// and takes a field of the custom kind of the same type, every field that kind requires
    /// is filled, and the chain of fallbacks comes to an end.
    private mutating func checkFallback(of name: String, path: String) {
        guard let declaration = kinds[name], let fallback = declaration.fallback else { return }
        let targetFields: [(name: String, type: ScalarType, required: Bool)]
        if let builtIn = Self.builtInRowFields[fallback.kind] {
            targetFields = builtIn
        } else if let custom = kinds[fallback.kind], fallback.kind != name {
            targetFields = custom.fields.keys.sorted().compactMap { field in custom.fields[field].map { (field, $0, true) } }
        } else {
            log.add(
                .unknownKind, at: "\(path).kind",
                "a fallback is a built-in row kind that is not an input (\(RowContent.builtInKinds.filter { Self.builtInRowFields[$0] != nil }.joined(separator: ", "))) or another kind declared under \"kinds\", not \"\(fallback.kind)\""
            )
            return
        }
        for (target, source) in fallback.fields.sorted(by: { $0.key < $1.key }) {
            guard let targetType = targetFields.first(where: { $0.name == target })?.type else {
                log.add(
                    .structure, at: "\(path).fields.\(target)",
                    "\"\(fallback.kind)\" has no field \"\(target)\"; its fields: \(targetFields.map(\.name).joined(separator: ", "))")
                continue
            }
            guard let sourceType = declaration.fields[source] else {
                log.add(
                    .structure, at: "\(path).fields.\(target)",
                    "\"\(name)\" has no field \"\(source)\"; its fields: \(declaration.fields.keys.sorted().joined(separator: ", "))")
                continue
            }
            if sourceType != targetType {
                log.add(
                    .typeMismatch, at: "\(path).fields.\(target)",
                    "\"\(target)\" of \"\(fallback.kind)\" is a \(targetType.rawValue), but \"\(source)\" of \"\(name)\" is a \(sourceType.rawValue)")
            }
        }
        for field in targetFields where field.required && fallback.fields[field.name] == nil {
            log.add(.structure, at: "\(path).fields", "\"\(fallback.kind)\" needs its field \"\(field.name)\"; name the field of \"\(name)\" it takes")
        }
        var seen: Set<String> = [name]
        var next = fallback.kind
        while let further = kinds[next]?.fallback {
            guard seen.insert(next).inserted else {
                log.add(.structure, at: "\(path).kind", "the fallbacks of \"\(name)\" come back to \"\(next)\"; a chain of fallbacks must end")
                return
            }
            guard seen.count <= Self.maxFallbacks else {
                log.add(
                    .structure, at: "\(path).kind",
                    "the fallbacks of \"\(name)\" go through more than \(Self.maxFallbacks) kinds; fall back to a built-in kind sooner")
                return
            }
            next = further.kind
        }
    }

    /// The most kinds a custom kind's chain of fallbacks may go through: every row of the
    /// kind carries the whole chain, and a client reads it one kind at a time.
    static let maxFallbacks = 16

    /// The fields of each kind of a custom kind's fallback chain, each taken from the one
    /// before it (the first from `fields`, the row's own), in the order the chain tries them.
    func fallbackChain(of kind: String, fields: [String: FieldSource]) -> [(kind: String, fields: [String: FieldSource])] {
        var chain: [(kind: String, fields: [String: FieldSource])] = []
        var seen: Set<String> = [kind]
        var current = (kind: kind, fields: fields)
        // A chain past the bound is a problem (`checkFallback`); the rows read meanwhile
        // carry no more of it.
        while chain.count < Self.maxFallbacks, let fallback = kinds[current.kind]?.fallback, seen.insert(fallback.kind).inserted {
            var mapped: [String: FieldSource] = [:]
            for (target, source) in fallback.fields { mapped[target] = current.fields[source] }
            if fallback.kind == Self.buttonStyleField.kind && mapped[Self.buttonStyleField.name] == nil {
                mapped[Self.buttonStyleField.name] = .template(Template(constant: ButtonStyle.default.rawValue))
            }
            current = (fallback.kind, mapped)
            chain.append(current)
        }
        return chain
    }
}
