/// Why a JSON document is not a valid screen or change set, and where (a JSON path such as
/// `$.sections[0].rows[2].title`).
public struct WireFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Problem: Hashable, Sendable {
        case invalidJSON(JSONParseError)
        case wrongType(expected: String, found: String)
        case missingField(String)
        case unknownField(String)
        case invalidValue(String, allowed: [String])
        case notAnInteger
        case negativeNumber
        case emptyID
        case duplicateSectionID(String)
        case duplicateRowID(String)
        case builtInKindAsCustom(String)
        case reservedFieldName(String)
        /// A slider's or stepper's `min` above its `max`.
        case minAboveMax(min: Double, max: Double)
        /// A stepper's `step` that is not above 0, or a slider's below 0.
        case invalidStep(Double, kind: String)
        /// A slider's or stepper's `value` outside `min`…`max`.
        case valueOutOfBounds(Double, min: Double, max: Double)
    }

    public var path: String
    public var problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "\(path): \(message)" }

    /// What is wrong, without the path.
    public var message: String {
        switch problem {
        case .invalidJSON(let error): "not valid JSON: \(error)"
        case .wrongType(let expected, let found): "expected \(expected), found \(found)"
        case .missingField(let name): "missing required field \"\(name)\""
        case .unknownField(let name): "unknown field \"\(name)\"; remove it or check its spelling"
        case .invalidValue(let value, let allowed):
            "\"\(value)\" is not allowed here; use one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))"
        case .notAnInteger: "expected a whole number"
        case .negativeNumber: "expected a number that is not negative"
        case .emptyID: "an id must not be empty"
        case .duplicateSectionID(let id): "section id \"\(id)\" is used more than once; section ids must be unique"
        case .duplicateRowID(let id): "row id \"\(id)\" is used more than once; row ids must be unique across the screen"
        case .builtInKindAsCustom(let kind): "\"\(kind)\" is a built-in kind and cannot be declared as a custom kind"
        case .reservedFieldName(let name):
            "\"\(name)\" is a key every row carries and cannot be a field of a custom kind"
        case .minAboveMax(let min, let max): "min (\(Self.text(min))) is above max (\(Self.text(max)))"
        case .invalidStep(let step, let kind):
            kind == "stepper"
                ? "a stepper's step is above 0, not \(Self.text(step))" : "a slider's step is 0 (continuous) or above, not \(Self.text(step))"
        case .valueOutOfBounds(let value, let min, let max):
            "the value (\(Self.text(value))) is outside min…max (\(Self.text(min))…\(Self.text(max)))"
        }
    }

    /// A number as JSON writes it: a whole number without a fraction.
    private static func text(_ number: Double) -> String {
        JSONValue.number(number).canonicalText
    }
}
