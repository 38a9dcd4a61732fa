import TabulaCore
import Testing

@Suite struct ExpressionTests {
    static let schema = RecordSchema(fields: ["name": .string, "secure": .bool, "age": .number])
    let scope = ExpressionScope(
        state: [
            "wifi": .scalar(.bool), "bluetooth": .scalar(.bool), "appearance": .scalar(.string),
            "volume": .scalar(.number), "networks": .list(ExpressionTests.schema),
        ],
        item: ("networks", ExpressionTests.schema))
    let context = EvaluationContext(
        state: SessionState(values: [
            "wifi": .scalar(.bool(true)), "bluetooth": .scalar(.bool(false)), "appearance": .scalar(.string("dark")),
            "volume": .scalar(.number(7)),
            "networks": .list([Record(id: "home", fields: ["name": .string("Home"), "secure": .bool(true), "age": .number(3)])]),
        ]),
        item: Record(id: "home", fields: ["name": .string("Home"), "secure": .bool(true), "age": .number(3)]))

    func value(_ source: String) throws -> FieldValue {
        try Expression.compile(source, scope: scope).evaluate(context)
    }

    func error(_ source: String) -> ExpressionError? {
        do {
            _ = try Expression.compile(source, scope: scope)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("true", FieldValue.bool(true)), ("false", .bool(false)), ("42", .number(42)), ("2.5", .number(2.5)),
        ("'text'", .string("text")), ("\"double\"", .string("double")), ("'it\\'s'", .string("it's")),
        ("wifi", .bool(true)), ("appearance", .string("dark")), ("networks.count", .number(1)),
        ("item.name", .string("Home")), ("item.id", .string("home")), ("item.secure", .bool(true)),
        ("!wifi", .bool(false)), ("!!wifi", .bool(true)), ("-volume", .number(-7)), ("-3", .number(-3)),
        ("wifi && bluetooth", .bool(false)), ("wifi || bluetooth", .bool(true)),
        ("appearance == 'dark'", .bool(true)), ("appearance != 'dark'", .bool(false)),
        ("volume < 10", .bool(true)), ("volume <= 7", .bool(true)), ("volume > 7", .bool(false)), ("volume >= 8", .bool(false)),
        ("'a' < 'b'", .bool(true)),
        ("wifi ? 'on' : 'off'", .string("on")), ("bluetooth ? 1 : 2", .number(2)),
        ("!bluetooth || wifi", .bool(true)),
        // && binds tighter than ||; comparisons tighter than &&; ?: lowest and right-associative.
        ("true || false && false", .bool(true)), ("(true || false) && false", .bool(false)),
        ("volume > 5 && appearance == 'dark'", .bool(true)),
        ("bluetooth ? 'a' : wifi ? 'b' : 'c'", .string("b")),
        ("wifi == !bluetooth", .bool(true)),
        ("item.age >= 3", .bool(true)),
        // Number operators: usual precedence, above comparisons; / by 0 gives 0.
        ("1 + 2 * 3", .number(7)), ("(1 + 2) * 3", .number(9)), ("10 - 4 - 3", .number(3)), ("8 / 2 / 2", .number(2)),
        ("volume / 0", .number(0)), ("volume + 50 > 56", .bool(true)), ("-volume * 2", .number(-14)), ("volume-1", .number(6)),
        // No result past the largest finite number: every number evaluated is one JSON holds.
        ("\(String(repeating: "9", count: 200)) * \(String(repeating: "9", count: 200))", .number(.greatestFiniteMagnitude)),
        ("-\(String(repeating: "9", count: 200)) * \(String(repeating: "9", count: 200)) - 1", .number(-.greatestFiniteMagnitude)),
        // Text functions compare lowercased forms; an empty needle is in everything.
        ("contains(item.name, 'OM')", .bool(true)), ("contains(item.name, '')", .bool(true)), ("contains('', 'a')", .bool(false)),
        ("startsWith(item.name, 'ho')", .bool(true)), ("startsWith(item.name, 'me')", .bool(false)),
        ("lowercase('ÄbC')", .string("äbc")), ("uppercase(appearance)", .string("DARK")),
        ("trim('  a b \n')", .string("a b")), ("trim(' \n ')", .string("")), ("length('héllo')", .number(5)),
        ("length(trim(' ab ')) + 1", .number(3)),
        ("count(networks, item.secure)", .number(1)), ("count(networks, !item.secure)", .number(0)),
        ("count(networks, contains(item.name, appearance)) == 0", .bool(true)),
    ])
    func evaluates(source: String, expected: FieldValue) throws {
        #expect(try value(source) == expected)
    }

    @Test(arguments: [
        ("", "the expression is empty", 1, ExpressionError.Kind.syntax),
        ("wifi &&", "the expression ends too early; a value is missing", 8, .syntax),
        ("(wifi", "expected ')' to close the '(' at column 1, found end of expression", 6, .syntax),
        ("wifi ? 1", "expected ':' in conditional expression, found end of expression", 9, .syntax),
        ("wifi = true", "unexpected '='; use '==' to compare", 6, .syntax),
        ("wifi & true", "unexpected '&'; use '&&'", 6, .syntax),
        ("'open", "unterminated string; close it with '", 1, .syntax),
        ("wifi wifi", "unexpected name 'wifi'", 6, .syntax),
        ("1.", "malformed number '1.'", 1, .syntax),
        ("item.age % 1", "unexpected character '%'", 10, .syntax),
        ("colour", "unknown state key 'colour'; declared keys: appearance, bluetooth, networks, volume, wifi", 1, .unknownStateKey),
        ("wifi && volume", "'&&' needs bool operands, but this is number", 9, .typeMismatch),
        ("!appearance", "'!' needs bool operands, but this is string", 2, .typeMismatch),
        ("volume == 'x'", "cannot compare number with string using '=='", 11, .typeMismatch),
        ("wifi < true", "'<' compares two numbers or two strings, not bool and bool", 1, .typeMismatch),
        ("volume ? 1 : 2", "the condition before '?' must be bool, but it is number", 1, .typeMismatch),
        ("wifi ? 1 : 'x'", "both branches of '?:' must have the same type; this one is string, the other number", 12, .typeMismatch),
        ("networks", "'networks' is a list; use networks.count, or repeat a row over it with \"forEach\"", 1, .typeMismatch),
        ("networks.first", "a list has only 'count'; 'networks.first' is not defined", 1, .typeMismatch),
        ("wifi.count", "'wifi' is a bool and has no members", 1, .typeMismatch),
        ("item", "'item' is a record; use one of its fields, such as item.id", 1, .typeMismatch),
        ("item.colour", "the items of 'networks' have no field 'colour'; they have: id, age, name, secure", 1, .typeMismatch),
    ])
    func reportsErrorsWithColumn(source: String, message: String, column: Int, kind: ExpressionError.Kind) {
        let failure = error(source)
        #expect(failure?.message == message)
        #expect(failure.map { $0.offset + 1 } == column)
        #expect(failure?.kind == kind)
    }

    @Test(arguments: [
        ("wifi + 1", "'+' needs number operands, but this is bool", 1),
        ("1 * 'a'", "'*' needs number operands, but this is string", 5),
        ("contains(volume, 'a')", "contains takes string arguments, as in contains(item.title, query), but this is number", 10),
        ("length('a', 'b')", "length takes one argument, as in length(name); this call gives 2", 1),
        ("trim(wifi)", "trim takes string arguments, as in trim(name), but this is bool", 6),
        ("count(wifi, true)", "'wifi' is not a list state key; count takes a list and a condition on its items, as in count(messages, !item.read)", 7),
        (
            "count(networks, item.age)",
            "count's condition must be bool, but it is number; count takes a list and a condition on its items, as in count(messages, !item.read)", 17
        ),
        ("count(networks, item.nope)", "the items of 'networks' have no field 'nope'; they have: id, age, name, secure", 17),
    ])
    func reportsWrongTypesForOperatorsAndFunctions(source: String, message: String, column: Int) {
        let error = error(source)
        #expect(error?.message == message)
        #expect(error.map { $0.offset + 1 } == column)
        #expect(error?.kind == .typeMismatch)
    }

    @Test func reportsUnknownFunctions() {
        #expect(
            error("matches(appearance, 'a')")?.message
                == "unknown function 'matches'; the functions are contains, count, length, lowercase, startsWith, trim, uppercase, valid")
    }

    @Test func countReadsItsListAndTheStateItsConditionReads() throws {
        let expression = try Expression.compile("count(networks, contains(item.name, appearance))", scope: ExpressionScope(state: scope.state))
        #expect(expression.stateKeys == ["networks", "appearance"])
    }

    @Test func itemIsOnlyDefinedInForEach() {
        let plain = ExpressionScope(state: ["wifi": .scalar(.bool)])
        #expect(throws: ExpressionError("'item' is only defined in a row with \"forEach\"", at: 0, kind: .typeMismatch)) {
            try Expression.compile("item.id", scope: plain)
        }
    }

    @Test func boundsNesting() {
        let deep = String(repeating: "(", count: 500) + "true" + String(repeating: ")", count: 500)
        #expect(error(deep)?.message.contains("nests deeper than 64 levels") == true)
        let bangs = String(repeating: "!", count: 10_000) + "wifi"
        #expect(error(bangs)?.message.contains("nests deeper than 64 levels") == true)
        // 64 levels are as deep as may be, as the docs say (63 were, by one level counted
        // for the expression itself).
        #expect(error(String(repeating: "(", count: 64) + "true" + String(repeating: ")", count: 64)) == nil)
        #expect(error(String(repeating: "!", count: 64) + "wifi") == nil)
        #expect(error(String(repeating: "(", count: 65) + "true" + String(repeating: ")", count: 65)) != nil)
        #expect(error(String(repeating: "!", count: 65) + "wifi") != nil)
    }

    /// Chains are parsed in loops, but make trees as deep as they are long: 12,000 terms
    /// once crashed `tabula validate` (walked and freed recursively). Each operator of a
    /// chain is a level, as each parenthesis is.
    @Test(arguments: ["wifi || ", "wifi && ", "wifi == ", "volume < 1 == "])
    func boundsChains(operator link: String) throws {
        let last = "wifi"
        let long = String(repeating: link, count: 12_000) + last
        let failure = try #require(error(long))
        #expect(failure.message.contains("nests deeper than 64 levels"))
        // The level past the limit is named: the 65th operator's right operand.
        if link.hasPrefix("wifi") {
            #expect(failure.offset == link.utf8.count * 65)
            // 64 operators are as deep as may be.
            #expect(error(String(repeating: link, count: 64) + last) == nil)
        }
    }

    @Test func boundsMessageArgumentsAndConditionals() {
        let conditional = String(repeating: "wifi ? 1 : ", count: 70) + "2"
        #expect(error(conditional)?.message.contains("nests deeper than 64 levels") == true)
    }

    @Test func missingStateEvaluatesToZero() throws {
        let expression = try Expression.compile("volume > 0 || appearance == ''", scope: scope)
        #expect(expression.evaluate(EvaluationContext(state: SessionState())) == .bool(true))
    }
}

@Suite struct TemplateTests {
    let scope = ExpressionScope(state: ["count": .scalar(.number), "wifi": .scalar(.bool), "name": .scalar(.string)])
    let context = EvaluationContext(
        state: SessionState(values: [
            "count": .scalar(.number(2)), "wifi": .scalar(.bool(false)), "name": .scalar(.string("Café")),
        ]))

    @Test func fillsInExpressions() throws {
        #expect(try Template.compile("{{count}} known networks", scope: scope).evaluate(context) == "2 known networks")
        #expect(try Template.compile("{{ wifi ? 'On' : 'Off' }}, {{name}}!", scope: scope).evaluate(context) == "Off, Café!")
        #expect(try Template.compile("{{wifi}} {{count > 1}}", scope: scope).evaluate(context) == "false true")
        #expect(try Template.compile("plain text } {", scope: scope).evaluate(context) == "plain text } {")
        #expect(try Template.compile("", scope: scope).evaluate(context) == "")
    }

    @Test func writesNumbersLikeJSON() throws {
        let half = EvaluationContext(state: SessionState(values: ["count": .scalar(.number(2.5))]))
        #expect(try Template.compile("{{count}}", scope: scope).evaluate(half) == "2.5")
    }

    @Test func reportsColumnsWithinTheTemplate() {
        #expect(throws: ExpressionError("'{{' is not closed by '}}'", at: 5)) { try Template.compile("Café {{count", scope: scope) }
        #expect(throws: ExpressionError("unknown state key 'nope'; declared keys: count, name, wifi", at: 9, kind: .unknownStateKey)) {
            try Template.compile("Count: {{nope}}", scope: scope)
        }
        #expect(throws: ExpressionError("the expression is empty", at: 2)) { try Template.compile("{{}}", scope: scope) }
    }

    /// A definition's check names every part that does not compile, not only the first, so
    /// an author fixes them in one go.
    @Test func namesTheProblemOfEveryPart() {
        var problems: [ExpressionError] = []
        #expect(Template.compile("{{nope}} is {{count}} or {{count +}}, then {{never", scope: scope, problems: &problems) == nil)
        #expect(
            problems == [
                ExpressionError("unknown state key 'nope'; declared keys: count, name, wifi", at: 2, kind: .unknownStateKey),
                ExpressionError("the expression ends too early; a value is missing", at: 34),
                ExpressionError("'{{' is not closed by '}}'", at: 43),
            ])
        var none: [ExpressionError] = []
        #expect(Template.compile("{{count}} of {{name}}", scope: scope, problems: &none)?.source == "{{count}} of {{name}}" && none.isEmpty)
    }
}
