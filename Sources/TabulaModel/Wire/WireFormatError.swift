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
        }
    }
}
