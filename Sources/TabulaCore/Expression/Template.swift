/// A string with `{{ expression }}` parts, such as `"{{networks.count}} known networks"`.
///
/// Every part is compiled when the template is; evaluation writes strings as they are,
/// whole numbers without a fraction, and bools as `true` or `false`. A `{{` always opens
/// an expression; the first `}}` after it closes it.
public struct Template: Hashable, Sendable, CustomStringConvertible {
    enum Part: Hashable, Sendable {
        case text(String)
        case expression(Expression)
    }

    public let source: String
    let parts: [Part]

    /// A template with no expressions.
    public init(constant text: String) {
        source = text
        parts = [.text(text)]
    }

    /// Compiles a template; an error's offset counts Unicode scalars from the template's start.
    /// Throws the first part's problem; ``compile(_:scope:problems:)`` gives them all.
    public static func compile(_ source: String, scope: ExpressionScope) throws(ExpressionError) -> Template {
        var problems: [ExpressionError] = []
        if let template = compile(source, scope: scope, problems: &problems) { return template }
        throw problems.first ?? ExpressionError("the template does not compile", at: 0)
    }

    /// Compiles a template, or appends the problem of every part that does not compile (an
    /// unclosed `{{` ends the search): a definition's check names them all at once.
    public static func compile(_ source: String, scope: ExpressionScope, problems: inout [ExpressionError]) -> Template? {
        let scalars = Array(source.unicodeScalars)
        let problemsBefore = problems.count
        var parts: [Part] = []
        var text = ""
        var index = 0
        while index < scalars.count {
            if scalars[index] == "{", index + 1 < scalars.count, scalars[index + 1] == "{" {
                guard let close = Self.closing(scalars, from: index + 2) else {
                    problems.append(ExpressionError("'{{' is not closed by '}}'", at: index))
                    return nil
                }
                if !text.isEmpty { parts.append(.text(text)) }
                text = ""
                var inner = ""
                inner.unicodeScalars.append(contentsOf: scalars[(index + 2)..<close])
                do {
                    parts.append(.expression(try Expression.compile(inner, scope: scope)))
                } catch {
                    problems.append(ExpressionError(error.message, at: error.offset + index + 2, kind: error.kind))
                }
                index = close + 2
            } else {
                text.unicodeScalars.append(scalars[index])
                index += 1
            }
        }
        guard problems.count == problemsBefore else { return nil }
        if !text.isEmpty || parts.isEmpty { parts.append(.text(text)) }
        return Template(source: source, parts: parts)
    }

    private init(source: String, parts: [Part]) {
        self.source = source
        self.parts = parts
    }

    private static func closing(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index + 1 < scalars.count {
            if scalars[index] == "}" && scalars[index + 1] == "}" { return index }
            index += 1
        }
        return nil
    }

    /// The template's text with every expression's value in place.
    public func evaluate(_ context: EvaluationContext) -> String {
        if parts.count == 1, case .text(let text) = parts[0] { return text }
        var result = ""
        for part in parts {
            switch part {
            case .text(let text): result += text
            case .expression(let expression): result += Self.text(of: expression.evaluate(context))
            }
        }
        return result
    }

    /// The template's expressions, in order.
    public var expressions: [Expression] {
        parts.compactMap { part in
            if case .expression(let expression) = part { return expression }
            return nil
        }
    }

    /// The state keys the template's expressions read.
    public var stateKeys: Set<String> {
        expressions.reduce(into: Set<String>()) { $0.formUnion($1.stateKeys) }
    }

    /// The keys of the messages the template's expressions name.
    public var messageKeys: Set<String> {
        expressions.reduce(into: Set<String>()) { $0.formUnion($1.messageKeys) }
    }

    /// The text before the first expression that is not a constant (constants, such as
    /// `{{'https:'}}`, count as their text), and whether that is the whole template.
    var leadingText: (text: String, isWhole: Bool) {
        var text = ""
        for part in parts {
            switch part {
            case .text(let more): text += more
            case .expression(let expression):
                guard case .literal(let value) = expression.node else { return (text, false) }
                text += Self.text(of: value)
            }
        }
        return (text, true)
    }

    /// The texts the template writes whatever the state: its text between expressions, and
    /// its constant expressions' texts.
    var constantTexts: [String] {
        parts.compactMap { part in
            switch part {
            case .text(let text): text
            case .expression(let expression):
                if case .literal(let value) = expression.node { Self.text(of: value) } else { nil }
            }
        }
    }

    /// The literal text before and after the only expression, when the template is exactly
    /// `prefix{{expression}}suffix`; `nil` otherwise.
    var singleExpressionAffixes: (prefix: String, expression: Expression, suffix: String)? {
        let expressions = expressions
        guard expressions.count == 1, let expression = expressions.first else { return nil }
        var prefix = ""
        var suffix = ""
        var seenExpression = false
        for part in parts {
            switch part {
            case .text(let text): if seenExpression { suffix += text } else { prefix += text }
            case .expression: seenExpression = true
            }
        }
        return (prefix, expression, suffix)
    }

    static func text(of value: FieldValue) -> String {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .number: value.json.canonicalText
        }
    }

    public var description: String { source }
}
