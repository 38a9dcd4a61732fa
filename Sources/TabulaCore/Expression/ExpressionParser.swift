/// Parses and type-checks an expression in one pass (recursive descent, lowest precedence
/// first: `?:`, `||`, `&&`, `==`/`!=`, comparisons, `+`/`-`, `*`/`/`, unary `!`/`-`,
/// primaries, among them function calls).
struct ExpressionParser {
    struct Typed {
        var node: ExpressionNode
        var type: ScalarType
        var offset: Int
        /// The operators above the deepest leaf: 0 for a leaf. Every walk of an expression
        /// (its evaluation, its dependencies, freeing it) recurses about this deep.
        var height = 0

        init(node: ExpressionNode, type: ScalarType, offset: Int) {
            self.node = node
            self.type = type
            self.offset = offset
        }

        /// A node over `operands`, one level above the highest of them; a chain of
        /// operators (`a || b || c …`) counts one level per operator. Throws when that is
        /// deeper than ``ExpressionParser/maxDepth``.
        init(node: ExpressionNode, type: ScalarType, offset: Int, operands: [Typed]) throws(ExpressionError) {
            self.init(node: node, type: type, offset: offset)
            height = 1 + (operands.map(\.height).max() ?? 0)
            guard height <= ExpressionParser.maxDepth else {
                throw ExpressionError(
                    "the expression nests deeper than \(ExpressionParser.maxDepth) levels (each operator of a chain such as a || b || c is a level); split it into several expressions",
                    at: operands.last?.offset ?? offset)
            }
        }
    }

    private let tokens: [ExpressionToken]
    private var scope: ExpressionScope
    private var position = 0
    /// Parentheses and operators nest; bound them so hostile input cannot exhaust the stack.
    private var depth = 0
    static let maxDepth = 64

    init(source: String, scope: ExpressionScope) throws(ExpressionError) {
        tokens = try ExpressionLexer.tokens(source)
        self.scope = scope
    }

    mutating func parseAll() throws(ExpressionError) -> Typed {
        if current.kind == .end { throw ExpressionError("the expression is empty", at: 0) }
        let result = try conditional()
        guard current.kind == .end else { throw ExpressionError("unexpected \(describe(current))", at: current.offset) }
        return result
    }

    private var current: ExpressionToken { tokens[min(position, tokens.count - 1)] }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private mutating func advance() -> ExpressionToken {
        let token = current
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    private func describe(_ token: ExpressionToken) -> String {
        switch token.kind {
        case .identifier(let name): "name '\(name)'"
        case .number(let value): "number \(FieldValue.number(value).json.canonicalText)"
        case .string(let text): "string '\(text)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .message(let key): "message '@\(key)'"
        case .end: "end of expression"
        }
    }

    private mutating func nest() throws(ExpressionError) {
        depth += 1
        // The expression itself is the first `conditional`: the levels are what nests
        // inside it, 64 pairs of parentheses or 64 operators before its operand.
        if depth > Self.maxDepth + 1 {
            throw ExpressionError("the expression nests deeper than \(Self.maxDepth) levels", at: current.offset)
        }
    }

    private func expect(_ type: ScalarType, _ operand: Typed, for operation: String) throws(ExpressionError) {
        guard operand.type == type else {
            throw ExpressionError(
                "'\(operation)' needs \(type.rawValue) operands, but this is \(operand.type.rawValue)", at: operand.offset, kind: .typeMismatch)
        }
    }

    private mutating func conditional() throws(ExpressionError) -> Typed {
        try nest()
        defer { depth -= 1 }
        let condition = try or()
        guard isSymbol("?") else { return condition }
        _ = advance()
        guard condition.type == .bool else {
            throw ExpressionError("the condition before '?' must be bool, but it is \(condition.type.rawValue)", at: condition.offset, kind: .typeMismatch)
        }
        let then = try conditional()
        guard isSymbol(":") else {
            throw ExpressionError("expected ':' in conditional expression, found \(describe(current))", at: current.offset)
        }
        _ = advance()
        let otherwise = try conditional()
        guard then.type == otherwise.type else {
            throw ExpressionError(
                "both branches of '?:' must have the same type; this one is \(otherwise.type.rawValue), the other \(then.type.rawValue)",
                at: otherwise.offset, kind: .typeMismatch)
        }
        return try Typed(
            node: .conditional(condition.node, then.node, otherwise.node), type: then.type, offset: condition.offset,
            operands: [condition, then, otherwise])
    }

    private mutating func or() throws(ExpressionError) -> Typed {
        var left = try and()
        while isSymbol("||") {
            _ = advance()
            let right = try and()
            try expect(.bool, left, for: "||")
            try expect(.bool, right, for: "||")
            left = try Typed(node: .or(left.node, right.node), type: .bool, offset: left.offset, operands: [left, right])
        }
        return left
    }

    private mutating func and() throws(ExpressionError) -> Typed {
        var left = try equality()
        while isSymbol("&&") {
            _ = advance()
            let right = try equality()
            try expect(.bool, left, for: "&&")
            try expect(.bool, right, for: "&&")
            left = try Typed(node: .and(left.node, right.node), type: .bool, offset: left.offset, operands: [left, right])
        }
        return left
    }

    private mutating func equality() throws(ExpressionError) -> Typed {
        var left = try comparison()
        while isSymbol("==") || isSymbol("!=") {
            let negated = isSymbol("!=")
            _ = advance()
            let right = try comparison()
            guard left.type == right.type else {
                throw ExpressionError(
                    "cannot compare \(left.type.rawValue) with \(right.type.rawValue) using '\(negated ? "!=" : "==")'", at: right.offset, kind: .typeMismatch)
            }
            left = try Typed(node: .equal(left.node, right.node, negated: negated), type: .bool, offset: left.offset, operands: [left, right])
        }
        return left
    }

    private mutating func comparison() throws(ExpressionError) -> Typed {
        var left = try arithmetic(ArithmeticOperator.additive)
        while case .symbol(let symbol) = current.kind, let comparison = ComparisonOperator(rawValue: symbol) {
            _ = advance()
            let right = try arithmetic(ArithmeticOperator.additive)
            guard left.type == right.type, left.type != .bool else {
                throw ExpressionError(
                    "'\(symbol)' compares two numbers or two strings, not \(left.type.rawValue) and \(right.type.rawValue)",
                    at: left.type == .bool ? left.offset : right.offset, kind: .typeMismatch)
            }
            left = try Typed(node: .compare(comparison, left.node, right.node), type: .bool, offset: left.offset, operands: [left, right])
        }
        return left
    }

    /// A chain of the operators of one precedence level, left to right: `+` and `-` over
    /// `*` and `/` over unary operators.
    private mutating func arithmetic(_ level: [ArithmeticOperator]) throws(ExpressionError) -> Typed {
        let isAdditive = level == ArithmeticOperator.additive
        var left = isAdditive ? try arithmetic(ArithmeticOperator.multiplicative) : try unary()
        while case .symbol(let symbol) = current.kind, let operation = ArithmeticOperator(rawValue: symbol), level.contains(operation) {
            _ = advance()
            let right = isAdditive ? try arithmetic(ArithmeticOperator.multiplicative) : try unary()
            try expect(.number, left, for: symbol)
            try expect(.number, right, for: symbol)
            left = try Typed(node: .arithmetic(operation, left.node, right.node), type: .number, offset: left.offset, operands: [left, right])
        }
        return left
    }

    private mutating func unary() throws(ExpressionError) -> Typed {
        if isSymbol("!") || isSymbol("-") {
            let symbol = advance()
            try nest()
            defer { depth -= 1 }
            let operand = try unary()
            if symbol.kind == .symbol("!") {
                try expect(.bool, operand, for: "!")
                return try Typed(node: .not(operand.node), type: .bool, offset: symbol.offset, operands: [operand])
            }
            try expect(.number, operand, for: "-")
            if case .literal(.number(let value)) = operand.node {
                return Typed(node: .literal(.number(-value)), type: .number, offset: symbol.offset)
            }
            return try Typed(node: .negate(operand.node), type: .number, offset: symbol.offset, operands: [operand])
        }
        return try primary()
    }

    private mutating func primary() throws(ExpressionError) -> Typed {
        let token = advance()
        switch token.kind {
        case .number(let value):
            return Typed(node: .literal(.number(value)), type: .number, offset: token.offset)
        case .string(let text):
            return Typed(node: .literal(.string(text)), type: .string, offset: token.offset)
        case .symbol("("):
            let inner = try conditional()
            guard isSymbol(")") else {
                throw ExpressionError("expected ')' to close the '(' at column \(token.offset + 1), found \(describe(current))", at: current.offset)
            }
            _ = advance()
            var parenthesized = inner
            parenthesized.offset = token.offset
            return parenthesized
        case .identifier(let name):
            return try path(first: name, offset: token.offset)
        case .message(let key):
            return try message(key, offset: token.offset)
        case .end:
            throw ExpressionError("the expression ends too early; a value is missing", at: token.offset)
        default:
            throw ExpressionError("expected a value, found \(describe(token))", at: token.offset)
        }
    }

    /// `@key` or `@key(name: value, ...)`: a message in the client's language, checked
    /// against every table's texts of it.
    private mutating func message(_ key: String, offset: Int) throws(ExpressionError) -> Typed {
        var arguments: [MessageArgument] = []
        var argumentValues: [Typed] = []
        var argumentTypes: [String: ScalarType] = [:]
        if isSymbol("(") {
            _ = advance()
            while !isSymbol(")") {
                guard case .identifier(let name) = current.kind else {
                    throw ExpressionError("expected an argument name, as in @\(key)(count: list.count), found \(describe(current))", at: current.offset)
                }
                let nameOffset = advance().offset
                guard isSymbol(":") else { throw ExpressionError("expected ':' after the argument name '\(name)'", at: current.offset) }
                _ = advance()
                guard argumentTypes[name] == nil else { throw ExpressionError("the argument '\(name)' is given twice", at: nameOffset) }
                let value = try conditional()
                arguments.append(MessageArgument(name: name, value: value.node))
                argumentValues.append(value)
                argumentTypes[name] = value.type
                if isSymbol(",") {
                    _ = advance()
                } else if !isSymbol(")") {
                    throw ExpressionError("expected ',' or ')' after an argument, found \(describe(current))", at: current.offset)
                }
            }
            _ = advance()
        }
        guard let strings = scope.strings else {
            throw ExpressionError(
                "@\(key) names a message, but there are no string tables; put the texts in the strings directory, one LOCALE.json per language",
                at: offset, kind: .unknownMessage)
        }
        let defaultTable = strings.tables[strings.defaultLocale] ?? [:]
        guard defaultTable[key] != nil else {
            throw ExpressionError(
                "no message \"\(key)\" in \(strings.defaultLocale).json, the default locale's table, which must have every message",
                at: offset, kind: .unknownMessage)
        }
        for locale in strings.locales {
            guard let message = strings.tables[locale]?[key] else { continue }
            if let missing = message.argumentNames.subtracting(argumentTypes.keys).sorted().first {
                throw ExpressionError(
                    "the \(locale) text of \"\(key)\" uses {\(missing)}; give it, as in @\(key)(\(missing): ...)", at: offset, kind: .unknownMessage)
            }
            if message.isPlural, argumentTypes[Message.countArgument] != .number {
                throw ExpressionError(
                    "the \(locale) text of \"\(key)\" has plural forms, chosen by a number: give it as @\(key)(\(Message.countArgument): ...)",
                    at: offset, kind: .unknownMessage)
            }
        }
        return try Typed(node: .message(key, arguments), type: .string, offset: offset, operands: argumentValues)
    }

    private mutating func path(first name: String, offset: Int) throws(ExpressionError) -> Typed {
        var components = [name]
        while isSymbol(".") {
            _ = advance()
            guard case .identifier(let member) = current.kind else {
                throw ExpressionError("expected a name after '.', found \(describe(current))", at: current.offset)
            }
            _ = advance()
            components.append(member)
        }
        switch (components.count, name) {
        case (1, "valid") where isSymbol("("): return try formValidity(offset: offset)
        case (1, ExpressionFunction.countName) where isSymbol("("): return try countWhere(offset: offset)
        case (1, _) where isSymbol("("):
            guard let function = ExpressionFunction(rawValue: name) else {
                let names = (ExpressionFunction.allCases.map(\.rawValue) + [ExpressionFunction.countName, "valid"]).sorted().joined(separator: ", ")
                throw ExpressionError("unknown function '\(name)'; the functions are \(names)", at: offset)
            }
            return try call(function, offset: offset)
        case (1, "true"): return Typed(node: .literal(.bool(true)), type: .bool, offset: offset)
        case (1, "false"): return Typed(node: .literal(.bool(false)), type: .bool, offset: offset)
        case (1, "value") where scope.editedValue != nil:
            let type = scope.editedValue ?? .string
            return Typed(node: .editedValue(type), type: type, offset: offset)
        case (_, "item"): return try itemPath(components, offset: offset)
        default: return try statePath(components, offset: offset)
        }
    }

    /// `valid('FORM')`: a bool; the form is checked against the screen's sections once
    /// they are read.
    private mutating func formValidity(offset: Int) throws(ExpressionError) -> Typed {
        _ = advance()
        guard case .string(let form) = current.kind else {
            throw ExpressionError("valid takes a form's name as a string, as in valid('signin'); found \(describe(current))", at: current.offset)
        }
        _ = advance()
        guard isSymbol(")") else { throw ExpressionError("expected ')' after valid's form name, found \(describe(current))", at: current.offset) }
        _ = advance()
        return Typed(node: .formValid(form), type: .bool, offset: offset)
    }

    /// A function's arguments in parentheses, each checked against the type the function
    /// takes there.
    private mutating func call(_ function: ExpressionFunction, offset: Int) throws(ExpressionError) -> Typed {
        _ = advance()
        var arguments: [Typed] = []
        while !isSymbol(")") {
            if !arguments.isEmpty {
                guard isSymbol(",") else {
                    throw ExpressionError("expected ',' or ')' after an argument of \(function.rawValue), found \(describe(current))", at: current.offset)
                }
                _ = advance()
            }
            arguments.append(try conditional())
        }
        _ = advance()
        let parameters = function.parameters
        guard arguments.count == parameters.count else {
            throw ExpressionError(
                "\(function.rawValue) takes \(parameters.count == 1 ? "one argument" : "\(parameters.count) arguments"), as in \(function.example); this call gives \(arguments.count)",
                at: offset, kind: .typeMismatch)
        }
        for (argument, type) in zip(arguments, parameters) where argument.type != type {
            throw ExpressionError(
                "\(function.rawValue) takes \(type.rawValue) arguments, as in \(function.example), but this is \(argument.type.rawValue)", at: argument.offset,
                kind: .typeMismatch)
        }
        return try Typed(node: .function(function, arguments.map(\.node)), type: function.result, offset: offset, operands: arguments)
    }

    /// `count(LIST, CONDITION)`: how many items of a list match; in the condition, `item`
    /// is the item counted.
    private mutating func countWhere(offset: Int) throws(ExpressionError) -> Typed {
        _ = advance()
        let usage = "count takes a list and a condition on its items, as in count(messages, !item.read)"
        guard case .identifier(let list) = current.kind else { throw ExpressionError("\(usage); found \(describe(current))", at: current.offset) }
        let listOffset = advance().offset
        guard case .list(let schema)? = scope.state[list] else {
            throw ExpressionError(
                "'\(list)' is not a list state key; \(usage)", at: listOffset, kind: scope.state[list] == nil ? .unknownStateKey : .typeMismatch)
        }
        guard isSymbol(",") else { throw ExpressionError("expected ',' after the list; \(usage)", at: current.offset) }
        _ = advance()
        var inner = self
        inner.scope.item = (list, schema)
        let condition = try inner.conditional()
        position = inner.position
        guard condition.type == .bool else {
            throw ExpressionError("count's condition must be bool, but it is \(condition.type.rawValue); \(usage)", at: condition.offset, kind: .typeMismatch)
        }
        guard isSymbol(")") else { throw ExpressionError("expected ')' after count's condition, found \(describe(current))", at: current.offset) }
        _ = advance()
        return try Typed(node: .countWhere(list, condition.node), type: .number, offset: offset, operands: [condition])
    }

    private func itemPath(_ components: [String], offset: Int) throws(ExpressionError) -> Typed {
        guard let item = scope.item else {
            throw ExpressionError(scope.withoutItem ?? "'item' is only defined in a row with \"forEach\"", at: offset, kind: .typeMismatch)
        }
        guard components.count == 2 else {
            throw ExpressionError(
                components.count == 1
                    ? "'item' is a record; use one of its fields, such as item.id"
                    : "'\(components.joined(separator: "."))' goes too deep; records have scalar fields only",
                at: offset, kind: .typeMismatch)
        }
        let field = components[1]
        guard let type = item.schema.type(of: field) else {
            let known = (["id"] + item.schema.fields.keys.sorted()).joined(separator: ", ")
            throw ExpressionError("the items of '\(item.list)' have no field '\(field)'; they have: \(known)", at: offset, kind: .typeMismatch)
        }
        return Typed(node: .itemField(field, type), type: type, offset: offset)
    }

    private func statePath(_ components: [String], offset: Int) throws(ExpressionError) -> Typed {
        let key = components[0]
        guard let type = scope.state[key] else {
            let known = scope.state.keys.sorted().joined(separator: ", ")
            throw ExpressionError("unknown state key '\(key)'; declared keys: \(known.isEmpty ? "none" : known)", at: offset, kind: .unknownStateKey)
        }
        switch (type, components.count) {
        case (.scalar(let scalar), 1):
            return Typed(node: .stateKey(key, scalar), type: scalar, offset: offset)
        case (.list, 2) where components[1] == "count":
            return Typed(node: .count(key), type: .number, offset: offset)
        case (.list, 1):
            throw ExpressionError("'\(key)' is a list; use \(key).count, or repeat a row over it with \"forEach\"", at: offset, kind: .typeMismatch)
        case (.list, _):
            throw ExpressionError("a list has only 'count'; '\(components.joined(separator: "."))' is not defined", at: offset, kind: .typeMismatch)
        case (.scalar(let scalar), _):
            throw ExpressionError("'\(key)' is a \(scalar.rawValue) and has no members", at: offset, kind: .typeMismatch)
        }
    }
}
