/// Collects the problems of one definition file while it is read.
struct ProblemLog {
    let file: String
    private(set) var problems: [DefinitionProblem] = []
    /// What works but may not do what its author expects: printed, never refused.
    private(set) var warnings: [DefinitionProblem] = []

    init(file: String) {
        self.file = file
    }

    mutating func add(_ kind: DefinitionProblem.Kind, at path: String, column: Int? = nil, _ message: String) {
        problems.append(DefinitionProblem(kind: kind, file: file, path: path, column: column, message: message))
    }

    mutating func warn(_ kind: DefinitionProblem.Kind, at path: String, _ message: String) {
        warnings.append(DefinitionProblem(kind: kind, file: file, path: path, message: message, severity: .warning))
    }

    /// Records an expression or template compile error at the string's path.
    mutating func add(_ error: ExpressionError, at path: String) {
        let kind: DefinitionProblem.Kind =
            switch error.kind {
            case .syntax: .expressionSyntax
            case .unknownStateKey: .unknownStateKey
            case .typeMismatch: .typeMismatch
            case .unknownMessage: .unknownMessage
            }
        add(kind, at: path, column: error.offset + 1, error.message)
    }

    mutating func wrongType(at path: String, expected: String, found value: JSONValue) {
        add(.structure, at: path, "expected \(expected), found \(value.typeName)")
    }
}

/// Reads one JSON object of a definition, remembering which members were read so the
/// rest can be reported as unknown.
struct DefinitionObject {
    let object: JSONObject
    let path: String
    private var read: Set<String> = []

    init?(_ value: JSONValue, path: String, log: inout ProblemLog) {
        guard case .object(let object) = value else {
            log.wrongType(at: path, expected: "an object", found: value)
            return nil
        }
        self.object = object
        self.path = path
    }

    func memberPath(_ key: some DefinitionKey) -> String { "\(path).\(key.name)" }

    mutating func take(_ key: some DefinitionKey) -> JSONValue? {
        read.insert(key.name)
        return object[key.name]
    }

    mutating func require(_ key: some DefinitionKey, log: inout ProblemLog, purpose: String = "") -> JSONValue? {
        guard let value = take(key) else {
            log.add(.structure, at: path, "missing required field \"\(key.name)\"\(purpose)")
            return nil
        }
        return value
    }

    mutating func requireString(_ key: some DefinitionKey, log: inout ProblemLog) -> String? {
        guard let value = require(key, log: &log) else { return nil }
        guard case .string(let text) = value else {
            log.wrongType(at: memberPath(key), expected: "a string", found: value)
            return nil
        }
        return text
    }

    mutating func optionalEnumeration<Value: RawRepresentable & CaseIterable>(
        _ key: some DefinitionKey, as type: Value.Type, log: inout ProblemLog
    ) -> Value? where Value.RawValue == String {
        guard let value = take(key) else { return nil }
        guard case .string(let raw) = value, let result = Value(rawValue: raw) else {
            let allowed = Value.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            log.add(.structure, at: memberPath(key), "\(value.canonicalText) is not allowed here; use one of \(allowed)")
            return nil
        }
        return result
    }

    /// Reports every member that was not read; `hints` adds advice for known mistakes.
    func reportUnread(log: inout ProblemLog, hints: [String: String] = [:]) {
        for key in object.keys where !read.contains(key) {
            log.add(.structure, at: path, "unknown field \"\(key)\"\(hints[key].map { "; \($0)" } ?? "; remove it or check its spelling")")
        }
    }
}
