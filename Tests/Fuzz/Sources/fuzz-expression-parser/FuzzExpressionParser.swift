import FuzzSupport
import TabulaCore

/// Fuzzes the expression language: the input, as UTF-8 text, is compiled as an expression
/// and as a template, with and without a `forEach` item in scope, and a short input also
/// as the links of long chains of each binary operator (a chain parses in a loop, but its
/// tree is as deep as the chain is long: 12,000 terms once crashed `tabula validate`).
/// Compiling must either fail with an error pointing inside the text, or give an
/// expression whose value always has its declared type and which reads only declared
/// state keys.
@main enum FuzzExpressionParser {
    static func main() {
        FuzzDriver.run(fuzzExpressionParser)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExpressionParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let source = String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self)
    check(source)
    if source.utf8.count <= 48 {
        for link in [" || ", " && ", " == ", " != ", " < "] {
            check(Array(repeating: source, count: 70).joined(separator: link), templates: false)
        }
    }
    return 0
}

/// Compiles `source` as an expression, and as a template unless told not to, in both scopes.
private func check(_ source: String, templates: Bool = true) {
    let scalarCount = source.unicodeScalars.count
    for scope in [ExpressionFixture.rowScope, ExpressionFixture.screenScope] {
        do {
            let expression = try Expression.compile(source, scope: scope)
            invariant(expression.source == source, "the expression does not keep its source")
            ExpressionFixture.checkValues(of: expression, source: source, scope: scope)
        } catch {
            ExpressionFixture.checkError(error, scalarCount: scalarCount, source: source)
        }
        guard templates else { continue }
        do {
            let template = try Template.compile(source, scope: scope)
            invariant(template.stateKeys.isSubset(of: scope.state.keys), "template '\(source)' reads undeclared keys \(template.stateKeys)")
            for context in ExpressionFixture.contexts(for: scope) {
                _ = template.evaluate(context)
            }
            for expression in template.expressions {
                ExpressionFixture.checkValues(of: expression, source: source, scope: scope)
            }
        } catch {
            ExpressionFixture.checkError(error, scalarCount: scalarCount, source: source)
        }
    }
}

/// The names and values expressions are compiled and evaluated against: every state
/// type, and a list whose records have every field type.
enum ExpressionFixture {
    static let recordSchema = RecordSchema(fields: ["name": .string, "secure": .bool, "age": .number])

    static let state: [String: StateType] = [
        "wifi": .scalar(.bool), "bluetooth": .scalar(.bool), "appearance": .scalar(.string),
        "volume": .scalar(.number), "networks": .list(recordSchema), "people": .list(RecordSchema()),
    ]

    /// The bundled string tables, which `@key` names.
    static let strings = Fixtures.catalogue.strings

    /// Inside a `forEach` row over `networks`.
    static let rowScope = ExpressionScope(state: state, item: ("networks", recordSchema), strings: strings)
    /// Anywhere else: no `item`.
    static let screenScope = ExpressionScope(state: state, strings: strings)

    static let home = Record(id: "home", fields: ["name": .string("Home"), "secure": .bool(true), "age": .number(3)])

    static let sessionState = SessionState(values: [
        "wifi": .scalar(.bool(true)), "bluetooth": .scalar(.bool(false)), "appearance": .scalar(.string("dark")),
        "volume": .scalar(.number(-7.5)), "networks": .list([home]), "people": .list([]),
    ])

    /// A full state, in English and in Polish, and an empty one where every key falls back
    /// to its type's zero.
    static func contexts(for scope: ExpressionScope) -> [EvaluationContext] {
        let item = scope.item == nil ? nil : home
        var polish = sessionState
        polish.client.locale = "pl"
        return [
            EvaluationContext(state: sessionState, item: item, strings: strings),
            EvaluationContext(state: polish, item: item, strings: strings),
            EvaluationContext(state: SessionState(), item: nil, strings: strings),
        ]
    }

    static func checkValues(of expression: Expression, source: String, scope: ExpressionScope) {
        invariant(
            expression.stateKeys.isSubset(of: scope.state.keys),
            "'\(source)' reads undeclared keys \(expression.stateKeys)")
        for context in contexts(for: scope) {
            let value = expression.evaluate(context)
            invariant(
                value.scalarType == expression.type,
                "'\(source)' is typed \(expression.type) but evaluates to \(value)")
            if expression.type == .bool {
                invariant(expression.isTrue(context) == (value == .bool(true)), "isTrue disagrees with the value of '\(source)'")
            }
        }
    }

    /// An error points inside the text (or just past its end) and says something.
    static func checkError(_ error: ExpressionError, scalarCount: Int, source: String) {
        invariant(
            (0...scalarCount).contains(error.offset),
            "error offset \(error.offset) is outside '\(source)' (\(scalarCount) scalars): \(error.message)")
        invariant(!error.message.isEmpty, "empty error message for '\(source)'")
    }
}
