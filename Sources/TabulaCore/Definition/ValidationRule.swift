/// A rule an input row's value should pass, with the message shown under the row while it
/// does not (once the row is touched). Rules are the definition's advice to the user, not
/// the control's limits: a value that breaks one is still stored (see `InputLimits.swift`
/// for what an edit may not send at all).
public struct ValidationRule: Sendable {
    public enum Check: Sendable {
        /// Not empty after trimming whitespace and newlines; for a choice or a date,
        /// something chosen. The other checks pass on an empty value.
        case required
        /// At least, at most this many characters (as Swift counts them).
        case minLength(Int)
        case maxLength(Int)
        /// The whole value matches (Swift `Regex` syntax, compiled when the catalogue loads).
        case pattern(PatternRule)
        /// Not below, not above: a number (for a text field, the text read as one) or a date
        /// in the row's format.
        case min(FieldValue)
        case max(FieldValue)
        /// The same value as another input row of the screen (a repeated password).
        case equals(row: String)
        /// A condition over state that must hold.
        case when(Expression)
    }

    public let check: Check
    public let message: Template

    public init(check: Check, message: Template) {
        self.check = check
        self.message = message
    }

    /// The state keys the rule reads besides the row's value: its message's, and a `when`
    /// rule's condition's.
    var stateKeys: Set<String> {
        if case .when(let condition) = check { return condition.stateKeys.union(message.stateKeys) }
        return message.stateKeys
    }
}

/// A compiled `pattern` rule, with the text it was written as: matched in linear time
/// when it is in ``PatternNode``'s subset, by Swift's `Regex` otherwise.
public struct PatternRule: @unchecked Sendable {
    // `Regex` is immutable once compiled; matching does not change it.
    let regex: Regex<AnyRegexOutput>
    /// The pattern over characters, when it is in the subset (see `LinearPattern`).
    let linear: LinearPattern?
    /// The same pattern over bytes, when it is a plain one (see `ASCIIPattern`).
    let plain: ASCIIPattern?
    public let source: String

    /// The most `[` a pattern may hold that no backslash escapes. `Regex`'s parser bounds
    /// the nesting of groups, not of character classes, and reads nested classes
    /// recursively: a few thousand nested `[` overflow its stack. Their nesting cannot be
    /// told from the text alone (a `]` quoted by `\Q…\E`, or in an extended-syntax comment,
    /// closes nothing), so every `[` counts, as if each were nested in the one before.
    static let maxClasses = 64

    public init(_ source: String) throws {
        var classes = 0
        var escaped = false
        for scalar in source.unicodeScalars {
            if escaped {
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else if scalar == "[" {
                classes += 1
                guard classes <= Self.maxClasses else { throw TooManyClasses() }
            }
        }
        regex = try Regex(source)
        let node = PatternNode.parse(source)
        linear = node.flatMap(LinearPattern.init)
        plain = node.flatMap(ASCIIPattern.init)
        self.source = source
    }

    /// Whether `Regex`'s backtracking matches it, the time a value takes then unbounded.
    public var backtracks: Bool { linear == nil }

    struct TooManyClasses: Error, CustomStringConvertible {
        var description: String { "it has more than \(PatternRule.maxClasses) character classes (a \"[\" that no backslash escapes)" }
    }

    /// Whether the whole of `text` matches, as `Regex` says.
    func matchesWhole(_ text: String) -> Bool {
        if let matched = plain?.wholeMatch(text) { return matched }
        if let linear { return linear.wholeMatch(text) }
        return (try? regex.wholeMatch(in: text)) != nil
    }
}

extension ValidationRule {
    /// Whether `value` (a row's value; `nil` for a secure field whose value is not known)
    /// passes. `other(row)` gives another input row's value, for `equals`: a rule comparing
    /// with a value that is not known passes.
    func passes(_ value: InputValue?, context: EvaluationContext, other: (String) -> InputValue?) -> Bool {
        let text: String? = if case .string(let string)? = value { string } else { nil }
        if case .required = check {
            switch value {
            // Empty once trimmed: no character but whitespace and newlines (the first other
            // one settles it, usually the first character).
            case .string(let string)?: return string.contains { !$0.isWhitespace && !$0.isNewline }
            case .null?, nil: return false
            case .number?: return true
            }
        }
        // Only `required` judges an empty value: the others, `when` too, pass on it. Blanks
        // are a value to them: five spaces break a `maxLength` of 3.
        switch value {
        case .string(let string)? where string.isEmpty: return true
        case .null?, nil: return true
        default: break
        }
        switch check {
        case .minLength(let length): return (text?.count ?? 0) >= length
        case .maxLength(let length): return (text?.count ?? 0) <= length
        case .pattern(let pattern): return text.map(pattern.matchesWhole) ?? true
        case .min(let bound): return Self.compare(value, bound).map { $0 >= 0 } ?? false
        case .max(let bound): return Self.compare(value, bound).map { $0 <= 0 } ?? false
        case .equals(let row):
            guard let value, let theirs = other(row) else { return true }
            return value == theirs
        case .when(let condition): return condition.isTrue(context)
        case .required: return true
        }
    }

    /// -1, 0 or 1 as the value is below, at or above the bound; `nil` when they cannot be
    /// compared (a text that is not a number against a number).
    private static func compare(_ value: InputValue?, _ bound: FieldValue) -> Int? {
        switch (value, bound) {
        case (.number(let number)?, .number(let limit)): return number < limit ? -1 : number > limit ? 1 : 0
        case (.string(let text)?, .number(let limit)):
            guard let number = decimalNumber(text.trimmingWhitespaceAndNewlines) else { return nil }
            return number < limit ? -1 : number > limit ? 1 : 0
        case (.string(let text)?, .string(let limit)): return text < limit ? -1 : text > limit ? 1 : 0
        default: return nil
        }
    }

    /// A text field's value read as a number: decimal digits with an optional sign, point
    /// and exponent (`-12.5`, `+3`, `.5`, `2e3`). Not what `Double(_:)` also reads (`nan`,
    /// `inf`, `0x1p3`): those are not numbers to a user, and `nan` passed every bound.
    static func decimalNumber(_ text: Substring) -> Double? {
        var bytes = text.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if let exponent = bytes.first, exponent == UInt8(ascii: "e") || exponent == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return nil }
        }
        guard bytes.isEmpty else { return nil }
        return Double(text)
    }
}

extension RowDefinition {
    /// The message of the first rule `value` fails, or `nil` when it passes them all.
    func firstFailure(of value: InputValue?, context: EvaluationContext, other: (String) -> InputValue?) -> String? {
        firstFailingRule(of: value, context: context, other: other).map { validate[$0].message.evaluate(context) }
    }

    /// The index in ``validate`` of the first rule `value` fails, or `nil` when it passes
    /// them all.
    func firstFailingRule(of value: InputValue?, context: EvaluationContext, other: (String) -> InputValue?) -> Int? {
        validate.firstIndex { !$0.passes(value, context: context, other: other) }
    }

    /// Whether a result kept in the marks (``FormMarks/secureResults``) says the value passed;
    /// `nil` when none is kept, or the rules no longer have the place it names (the
    /// definition changed since): it then counts as never kept. A result kept for a row that
    /// is not secure (an `equals` that failed against a secure field's value) counts only
    /// while its rule is an `equals`.
    func keptVerdict(_ result: Int?, secure: Bool) -> Bool? {
        guard let result else { return nil }
        if result == FormMarks.passed { return true }
        guard validate.indices.contains(result) else { return nil }
        if !secure {
            guard case .equals = validate[result].check else { return nil }
        }
        return false
    }
}

extension String {
    /// The string without leading and trailing whitespace and newlines (Unicode's).
    var trimmingWhitespaceAndNewlines: Substring {
        let characters = self[...]
        guard let first = characters.firstIndex(where: { !$0.isWhitespace && !$0.isNewline }),
            let last = characters.lastIndex(where: { !$0.isWhitespace && !$0.isNewline })
        else { return "" }
        return characters[first...last]
    }
}
