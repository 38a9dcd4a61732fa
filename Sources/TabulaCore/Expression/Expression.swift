/// A compiled, type-checked expression over session state (and, inside `forEach`, the
/// current item).
///
/// The language: literals (`true`, `false`, numbers, `'text'`), state keys, `item.field`
/// inside `forEach`, `list.count`, `!`, unary `-`, `+`, `-`, `*`, `/` (by 0 gives 0; no result
/// past the largest finite number), `&&`,
/// `||`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `c ? a : b`, parentheses, the functions of
/// ``ExpressionFunction`` and `count(LIST, CONDITION)` (the items of a list for which the
/// condition holds, `item` being the item), and messages of the string tables in the client's
/// language: `@key`, or `@key(count: networks.count, name: item.name)` with the arguments
/// its texts use (a string). Types are checked when the expression is compiled,
/// so evaluation cannot fail.
public struct Expression: Hashable, Sendable, CustomStringConvertible {
    /// The expression as written.
    public let source: String
    /// The type of the expression's value.
    public let type: ScalarType
    let node: ExpressionNode

    init(source: String, type: ScalarType, node: ExpressionNode) {
        self.source = source
        self.type = type
        self.node = node
    }

    /// A constant expression.
    public init(constant value: FieldValue) {
        source = value.json.canonicalText
        type = value.scalarType
        node = .literal(value)
    }

    /// Compiles `source` against the names in `scope`.
    public static func compile(_ source: String, scope: ExpressionScope) throws(ExpressionError) -> Expression {
        var parser = try ExpressionParser(source: source, scope: scope)
        let typed = try parser.parseAll()
        return Expression(source: source, type: typed.type, node: typed.node)
    }

    /// The expression's value; total: a key the state lacks evaluates to its type's zero.
    public func evaluate(_ context: EvaluationContext) -> FieldValue {
        node.evaluate(context)
    }

    /// The value of a bool expression (`false` for any other type).
    public func isTrue(_ context: EvaluationContext) -> Bool {
        node.bool(context)
    }

    /// The expression with every part that does not read the item evaluated once in
    /// `context` (see ``ExpressionNode/boundToState(_:)``): for testing many items.
    func boundToState(_ context: EvaluationContext) -> Expression {
        Expression(source: source, type: type, node: node.boundToState(context))
    }

    /// The expression reading the items of `records`, the list `list`, from their columns,
    /// or `nil` when the source gives no column for a field it reads (see
    /// ``ExpressionNode/readingColumns(of:_:from:)``).
    func readingColumns(of list: String, _ records: [Record], from source: any ItemColumnSource) -> Expression? {
        node.readingColumns(of: list, records, from: source).map { Expression(source: self.source, type: type, node: $0) }
    }

    /// The state keys the expression reads.
    public var stateKeys: Set<String> {
        var keys: Set<String> = []
        node.collectStateKeys(into: &keys)
        return keys
    }

    /// Whether the expression is a constant (it reads no state and no item).
    public var isConstant: Bool {
        if case .literal = node { return true }
        return false
    }

    /// The keys of the messages the expression names.
    public var messageKeys: Set<String> {
        var keys: Set<String> = []
        node.collectMessageKeys(into: &keys)
        return keys
    }

    public var description: String { source }
}

/// The names an expression may use.
public struct ExpressionScope: Sendable {
    public var state: [String: StateType]
    /// Inside `forEach`: the list being repeated and its record schema.
    public var item: (list: String, schema: RecordSchema)?
    /// The messages `@key` may name; `nil` when the catalogue has no string tables.
    public var strings: StringTables?
    /// In an input row's `onEdit` actions: the type of `value`, the edited value.
    public var editedValue: ScalarType?
    /// Why `item` is not defined here, when a row with `forEach` reads no item of its own
    /// (its `limit` counts the items): the message of an expression that reads one.
    public var withoutItem: String?

    public init(
        state: [String: StateType], item: (list: String, schema: RecordSchema)? = nil, strings: StringTables? = nil, editedValue: ScalarType? = nil
    ) {
        self.state = state
        self.item = item
        self.strings = strings
        self.editedValue = editedValue
    }
}

/// What an expression is evaluated against.
public struct EvaluationContext: Sendable {
    public var state: SessionState
    public var item: Record?
    /// The messages the definition names, written in the language of the state's client.
    public var strings: StringTables?
    /// The screen being rendered or acted on, whose forms `valid('FORM')` judges (false
    /// without one).
    public var screen: ScreenDefinition?
    /// While an edit's `onEdit` actions run: the value the user entered (`value`).
    public var editedValue: FieldValue?
    /// The position of the item in its list while a node ``ExpressionNode/readingColumns(of:_:from:)``
    /// is evaluated for it.
    var itemIndex = 0
    /// On an item screen, the item it shows (which `item` reads outside `forEach` rows):
    /// what `valid('FORM')` judges the form's rows with.
    public var screenItem: Record?

    public init(
        state: SessionState, item: Record? = nil, strings: StringTables? = nil, screen: ScreenDefinition? = nil, editedValue: FieldValue? = nil,
        screenItem: Record? = nil
    ) {
        self.editedValue = editedValue
        self.screenItem = screenItem
        self.state = state
        self.item = item
        self.strings = strings
        self.screen = screen
    }
}

/// The forms whose `valid(FORM)` is being worked out on this thread, innermost last, and
/// the judgings left to the outermost reading.
enum FormsBeingJudged {
    @TaskLocal static var current: (forms: [String], budget: JudgingBudget)?

    /// The most forms one reading of `valid(FORM)` judges, nested readings included. Forms
    /// whose rows read each other's validity re-judge one another without a memo (a verdict
    /// read inside another judging depends on which forms are being judged): a dozen forms
    /// that each read every other would take factorial time. Past the budget, `valid`
    /// reads false, as it does inside its own form's judging.
    static let judgings = 64
}

/// The judgings left to one reading of `valid(FORM)`: shared by its nested readings, on the
/// one thread that evaluates them.
final class JudgingBudget: @unchecked Sendable {
    var left = FormsBeingJudged.judgings
}

enum ComparisonOperator: String, Hashable, Sendable {
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    func holds<Value: Comparable>(_ left: Value, _ right: Value) -> Bool {
        switch self {
        case .less: left < right
        case .lessOrEqual: left <= right
        case .greater: left > right
        case .greaterOrEqual: left >= right
        }
    }
}

/// The number operators; `/` by 0 gives 0, and a result past the largest finite number is
/// that number (with its sign), so that evaluation stays total and every number it gives
/// can be stored and written as JSON.
enum ArithmeticOperator: String, Hashable, Sendable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"

    static let additive: [ArithmeticOperator] = [.add, .subtract]
    static let multiplicative: [ArithmeticOperator] = [.multiply, .divide]

    func apply(_ left: Double, _ right: Double) -> Double {
        let result: Double =
            switch self {
            case .add: left + right
            case .subtract: left - right
            case .multiply: left * right
            case .divide: right == 0 ? 0 : left / right
            }
        if result.isFinite { return result }
        return result.isNaN ? 0 : result > 0 ? .greatestFiniteMagnitude : -.greatestFiniteMagnitude
    }
}

/// The functions of the expression language over strings. Comparisons of text ignore case
/// the way search fields do: both sides in their `lowercased()` form.
public enum ExpressionFunction: String, CaseIterable, Hashable, Sendable {
    /// `contains(a, b)`: whether `a` contains `b` (an empty `b` is in everything).
    case contains
    /// `startsWith(a, b)`: whether `a` starts with `b`.
    case startsWith
    case lowercase, uppercase
    /// `trim(s)`: `s` without leading and trailing whitespace and newlines.
    case trim
    /// `length(s)`: the characters of `s`, as Swift counts them.
    case length

    /// `count(LIST, CONDITION)`, parsed apart: its first argument is a list, not a value.
    static let countName = "count"

    var parameters: [ScalarType] {
        switch self {
        case .contains, .startsWith: [.string, .string]
        case .lowercase, .uppercase, .trim, .length: [.string]
        }
    }

    var result: ScalarType {
        switch self {
        case .contains, .startsWith: .bool
        case .lowercase, .uppercase, .trim: .string
        case .length: .number
        }
    }

    var example: String {
        switch self {
        case .contains: "contains(item.title, query)"
        case .startsWith: "startsWith(item.name, query)"
        case .lowercase, .uppercase, .trim, .length: "\(rawValue)(name)"
        }
    }

    /// The function's value for its arguments (`second` is `""` for a one-argument function).
    func apply(_ first: String, _ second: String) -> FieldValue {
        switch self {
        case .contains, .startsWith: return .bool(FoldedText.search(self, first, second))
        case .lowercase: return .string(first.lowercased())
        case .uppercase: return .string(first.uppercased())
        case .trim:
            let isSpace: (Character) -> Bool = { $0.isWhitespace || $0.isNewline }
            guard let start = first.firstIndex(where: { !isSpace($0) }), let end = first.lastIndex(where: { !isSpace($0) }) else { return .string("") }
            return .string(String(first[start...end]))
        case .length: return .number(Double(first.count))
        }
    }

    /// `contains` or `startsWith` of `text` and a prepared second argument.
    func search(_ text: String, _ part: FoldedPattern) -> FieldValue {
        .bool(FoldedText.search(self, text, part))
    }
}

/// A message's argument: its name and the expression giving its value.
struct MessageArgument: Hashable, Sendable {
    var name: String
    var value: ExpressionNode
}

indirect enum ExpressionNode: Hashable, Sendable {
    case literal(FieldValue)
    case stateKey(String, ScalarType)
    case count(String)
    case itemField(String, ScalarType)
    /// `value` in `onEdit` actions: the edited value, of the kind's state type.
    case editedValue(ScalarType)
    case not(ExpressionNode)
    case negate(ExpressionNode)
    case and(ExpressionNode, ExpressionNode)
    case or(ExpressionNode, ExpressionNode)
    case equal(ExpressionNode, ExpressionNode, negated: Bool)
    case compare(ComparisonOperator, ExpressionNode, ExpressionNode)
    case conditional(ExpressionNode, ExpressionNode, ExpressionNode)
    case arithmetic(ArithmeticOperator, ExpressionNode, ExpressionNode)
    case function(ExpressionFunction, [ExpressionNode])
    /// `count(LIST, CONDITION)`: the condition reads each item as `item`.
    case countWhere(String, ExpressionNode)
    case message(String, [MessageArgument])
    /// `valid('FORM')`: whether every visible input row of the form passes its rules.
    case formValid(String)
    /// `contains` or `startsWith` whose second argument was bound to a text
    /// (``boundToState(_:)``): the text is prepared once for every item a search tests.
    case search(ExpressionFunction, ExpressionNode, FoldedPattern)
    /// `item.FIELD` read from the column of a list being walked, at the context's
    /// `itemIndex` (``readingColumns(of:_:from:)``).
    case itemColumn(ItemColumn)
    /// A ``search(_:_:_:)`` of such a column: one reference to follow per item.
    case columnSearch(ColumnSearch)

    /// What `valid('FORM')` stands for among the state keys a part reads: the dependency
    /// masks expand it to what the form's rows read, and the form marks.
    static func formValidityKey(_ form: String) -> String { "$valid:\(form)" }

    func evaluate(_ context: EvaluationContext) -> FieldValue {
        switch self {
        case .literal(let value):
            return value
        case .stateKey(let key, let type):
            guard let value = context.state.scalar(key), value.scalarType == type else { return type.zero }
            return value
        case .count(let key):
            return .number(Double(context.state.records(key).count))
        case .itemField(let field, let type):
            guard let item = context.item else { return type.zero }
            return Self.itemValue(item, field, type)
        case .itemColumn(let column):
            return column.values[context.itemIndex]
        case .editedValue(let type):
            guard let value = context.editedValue, value.scalarType == type else { return type.zero }
            return value
        case .not, .and, .or, .columnSearch:
            return .bool(bool(context))
        case .negate(let operand):
            return .number(-operand.number(context))
        case .equal(let left, let right, let negated):
            return .bool((left.evaluate(context) == right.evaluate(context)) != negated)
        case .compare(let comparison, .countWhere(let list, let condition), let right):
            // `count(LIST, CONDITION) > N` needs no more than N + 1 matches to be decided.
            guard case .number(let bound) = right.evaluate(context) else { return .bool(false) }
            let cap = bound.isFinite ? (bound < 0 ? 0 : bound >= 0x1p52 ? Int.max : Int(bound.rounded(.down)) + 1) : Int.max
            return .bool(comparison.holds(Double(Self.count(list, condition, context, stoppingAt: cap)), bound))
        case .compare(let comparison, let left, let right):
            switch (left.evaluate(context), right.evaluate(context)) {
            case (.number(let a), .number(let b)): return .bool(comparison.holds(a, b))
            case (.string(let a), .string(let b)): return .bool(comparison.holds(a, b))
            default: return .bool(false)
            }
        case .conditional(let condition, let then, let otherwise):
            return condition.bool(context) ? then.evaluate(context) : otherwise.evaluate(context)
        case .arithmetic(let operation, let left, let right):
            return .number(operation.apply(left.number(context), right.number(context)))
        case .function(let function, let arguments):
            // One or two arguments, read without an array: a search calls this per item.
            let first = arguments.first.map { $0.string(context) } ?? ""
            return function.apply(first, arguments.count > 1 ? arguments[1].string(context) : "")
        case .search(let function, let text, let part):
            return function.search(text.string(context), part)
        case .countWhere(let list, let condition):
            return .number(Double(Self.count(list, condition, context, stoppingAt: Int.max)))
        case .message(let key, let arguments):
            guard let strings = context.strings else { return .string(key) }
            var values: [String: FieldValue] = [:]
            for argument in arguments { values[argument.name] = argument.value.evaluate(context) }
            return .string(strings.text(key, locale: context.state.client.locale, arguments: values))
        case .formValid(let form):
            // A form's rows may read its validity (a rule's `when`, a message, a value): read
            // while the form is being judged, it is false, and the judging ends.
            let judging = FormsBeingJudged.current ?? ([], JudgingBudget())
            guard let screen = context.screen, !judging.forms.contains(form), judging.budget.left > 0 else { return .bool(false) }
            judging.budget.left -= 1
            return .bool(
                FormsBeingJudged.$current.withValue((judging.forms + [form], judging.budget)) {
                    screen.isFormValid(form, context.state, screenItem: context.screenItem)
                })
        }
    }

    /// `item.FIELD` of `item`, as a value of the field's type (its zero when the item lacks
    /// the field or holds another type).
    static func itemValue(_ item: Record, _ field: String, _ type: ScalarType) -> FieldValue {
        guard let value = item.value(of: field), value.scalarType == type else { return type.zero }
        return value
    }

    /// How many items of `list` `condition` holds for, counting no further than `cap`.
    private static func count(_ list: String, _ condition: ExpressionNode, _ context: EvaluationContext, stoppingAt cap: Int) -> Int {
        let records = context.state.records(list)
        var condition = condition.boundToState(context)
        var readsColumns = false
        if let source = ItemColumns.source(for: records), let reading = condition.readingColumns(of: list, records, from: source) {
            (condition, readsColumns) = (reading, true)
        }
        var itemContext = context
        var count = 0
        for index in records.indices where count < cap {
            if readsColumns { itemContext.itemIndex = index } else { itemContext.item = records[index] }
            if condition.bool(itemContext) { count += 1 }
        }
        return count
    }

    /// The node reading the fields of `records`' items (the list `list`) from their columns,
    /// to be evaluated with the context's `itemIndex` at an item's position (and no `item`);
    /// `nil` when the source gives no column for a field it reads. A `count`'s condition
    /// reads its own items, and is left as it is.
    func readingColumns(of list: String, _ records: [Record], from source: any ItemColumnSource) -> ExpressionNode? {
        func reading(_ node: ExpressionNode) -> ExpressionNode? { node.readingColumns(of: list, records, from: source) }
        func readingBoth(_ left: ExpressionNode, _ right: ExpressionNode) -> (ExpressionNode, ExpressionNode)? {
            guard let left = reading(left), let right = reading(right) else { return nil }
            return (left, right)
        }
        func readingAll(_ nodes: [ExpressionNode]) -> [ExpressionNode]? {
            var read: [ExpressionNode] = []
            for node in nodes {
                guard let node = reading(node) else { return nil }
                read.append(node)
            }
            return read
        }
        switch self {
        case .itemField(let field, let type):
            // A column is read by position: one of another length is not this list's.
            guard let column = source.column(field, type, ofList: list, records), column.values.count == records.count else { return nil }
            return .itemColumn(column)
        case .literal, .stateKey, .count, .editedValue, .countWhere, .formValid, .itemColumn, .columnSearch: return self
        case .not(let operand): return reading(operand).map { .not($0) }
        case .negate(let operand): return reading(operand).map { .negate($0) }
        case .and(let left, let right): return readingBoth(left, right).map { .and($0, $1) }
        case .or(let left, let right): return readingBoth(left, right).map { .or($0, $1) }
        case .equal(let left, let right, let negated): return readingBoth(left, right).map { .equal($0, $1, negated: negated) }
        case .compare(let comparison, let left, let right): return readingBoth(left, right).map { .compare(comparison, $0, $1) }
        case .arithmetic(let operation, let left, let right): return readingBoth(left, right).map { .arithmetic(operation, $0, $1) }
        case .conditional(let condition, let then, let otherwise):
            guard let all = readingAll([condition, then, otherwise]) else { return nil }
            return .conditional(all[0], all[1], all[2])
        case .function(let function, let arguments): return readingAll(arguments).map { .function(function, $0) }
        case .search(let function, let text, let part):
            guard let read = reading(text) else { return nil }
            if case .itemColumn(let column) = read { return .columnSearch(ColumnSearch(function, column, part)) }
            return .search(function, read, part)
        case .message(let key, let arguments):
            guard let values = readingAll(arguments.map(\.value)) else { return nil }
            return .message(key, zip(arguments, values).map { MessageArgument(name: $0.name, value: $1) })
        }
    }

    /// The node with every part that does not read the item evaluated once, in `context`:
    /// a condition tested against each item of a long list then looks up only the item's
    /// fields (`Scripts/bench-core lists` prints what a search costs).
    func boundToState(_ context: EvaluationContext) -> ExpressionNode {
        guard readsItem else { return .literal(evaluate(context)) }
        switch self {
        case .not(let operand): return .not(operand.boundToState(context))
        case .negate(let operand): return .negate(operand.boundToState(context))
        case .and(let left, let right): return .and(left.boundToState(context), right.boundToState(context))
        case .or(let left, let right): return .or(left.boundToState(context), right.boundToState(context))
        case .equal(let left, let right, let negated): return .equal(left.boundToState(context), right.boundToState(context), negated: negated)
        case .compare(let comparison, let left, let right): return .compare(comparison, left.boundToState(context), right.boundToState(context))
        case .arithmetic(let operation, let left, let right): return .arithmetic(operation, left.boundToState(context), right.boundToState(context))
        case .conditional(let condition, let then, let otherwise):
            return .conditional(condition.boundToState(context), then.boundToState(context), otherwise.boundToState(context))
        case .function(let function, let arguments):
            let bound = arguments.map { $0.boundToState(context) }
            if function == .contains || function == .startsWith, bound.count == 2, case .literal(.string(let part)) = bound[1] {
                return .search(function, bound[0], FoldedPattern(part))
            }
            return .function(function, bound)
        default: return self
        }
    }

    /// Whether the node or a node inside it reads the item (`item.FIELD`, or `value`, which
    /// stands for the edited value); a `count`'s condition reads its own items, not this one.
    private var readsItem: Bool {
        switch self {
        case .itemField, .editedValue, .itemColumn, .columnSearch: return true
        case .countWhere: return false
        default:
            var reads = false
            forEachOperand { reads = reads || $0.readsItem }
            return reads
        }
    }

    /// The state keys the node and the nodes inside it read.
    func collectStateKeys(into keys: inout Set<String>) {
        switch self {
        case .stateKey(let key, _), .count(let key): keys.insert(key)
        case .countWhere(let list, let condition):
            keys.insert(list)
            condition.collectStateKeys(into: &keys)
        case .formValid(let form): keys.insert(Self.formValidityKey(form))
        default: forEachOperand { $0.collectStateKeys(into: &keys) }
        }
    }

    /// The message keys the node and the nodes inside it name.
    func collectMessageKeys(into keys: inout Set<String>) {
        if case .message(let key, _) = self { keys.insert(key) }
        forEachOperand { $0.collectMessageKeys(into: &keys) }
    }

    /// Calls `body` with each node directly inside this one (a message's arguments
    /// included): the one walk the collections above share.
    private func forEachOperand(_ body: (ExpressionNode) -> Void) {
        switch self {
        case .literal, .stateKey, .count, .itemField, .editedValue, .formValid, .itemColumn, .columnSearch: return
        case .not(let operand), .negate(let operand), .countWhere(_, let operand), .search(_, let operand, _): body(operand)
        case .and(let left, let right), .or(let left, let right), .equal(let left, let right, _), .compare(_, let left, let right),
            .arithmetic(_, let left, let right):
            body(left)
            body(right)
        case .conditional(let condition, let then, let otherwise):
            body(condition)
            body(then)
            body(otherwise)
        case .message(_, let arguments):
            for argument in arguments { body(argument.value) }
        case .function(_, let arguments):
            for argument in arguments { body(argument) }
        }
    }

    /// A bool node's value (`false` for any other type). The operators a search's filter is
    /// made of are evaluated here, without a value built for each operand: a filter runs once
    /// per item of a long list.
    func bool(_ context: EvaluationContext) -> Bool {
        switch self {
        case .columnSearch(let search): return search.holds(at: context.itemIndex)
        case .or(let left, let right): return left.bool(context) || right.bool(context)
        case .and(let left, let right): return left.bool(context) && right.bool(context)
        case .not(let operand): return !operand.bool(context)
        default:
            if case .bool(let flag) = evaluate(context) { return flag }
            return false
        }
    }

    private func number(_ context: EvaluationContext) -> Double {
        if case .number(let value) = evaluate(context) { return value }
        return 0
    }

    private func string(_ context: EvaluationContext) -> String {
        if case .string(let text) = evaluate(context) { return text }
        return ""
    }
}
