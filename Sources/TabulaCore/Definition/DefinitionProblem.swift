/// One problem in a screen definition: the file, the JSON path, for expressions the
/// column within the string, where it is in the file's text, and what to fix.
public struct DefinitionProblem: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case invalidJSON
        /// A member is missing, unknown, or of the wrong JSON type, or a value is not allowed.
        case structure
        case duplicateScreenID
        case duplicateSectionID
        /// Two rows have, or a `forEach` row could produce, the same id.
        case duplicateRowID
        case unknownStateKey
        case typeMismatch
        case expressionSyntax
        case unknownScreen
        case switchOnNonBool
        case removeOutsideForEach
        case unknownKind
        /// A state default that is not a valid value (for example a list item without `id`).
        case invalidStateDefault
        /// Two screens declare the same state key or custom kind differently.
        case conflictingDeclaration
        /// A message the default locale's table lacks, or a message call that does not give
        /// what its texts use.
        case unknownMessage
        /// A message a locale's tables lack (its clients get the text of a locale it falls
        /// back to), or a plural form its language uses that a message lacks, or one it
        /// never uses. A warning.
        case missingTranslation
        /// An `open` action whose URL has no scheme, or one a client may not be given.
        case urlScheme
    }

    /// Whether the problem keeps the definitions from loading.
    public enum Severity: String, Hashable, Sendable {
        case error
        /// Loading goes on; the author should know.
        case warning
    }

    public var kind: Kind
    public var file: String
    public var path: String
    /// One-based column within an expression or template string, when the problem is in one.
    public var column: Int?
    /// Where the problem is in the file's text (for an expression, the character `column`
    /// names), once ``Catalogue/load(_:)`` located it.
    public var location: SourcePosition?
    public var message: String
    public var severity: Severity

    public init(
        kind: Kind, file: String, path: String, column: Int? = nil, location: SourcePosition? = nil, message: String, severity: Severity = .error
    ) {
        self.kind = kind
        self.severity = severity
        self.file = file
        self.path = path
        self.column = column
        self.location = location
        self.message = message
    }

    /// A file that is not JSON, located where the parser stopped.
    public static func invalidJSON(_ error: JSONParseError, file: String) -> DefinitionProblem {
        DefinitionProblem(
            kind: .invalidJSON, file: file, path: "$", location: SourcePosition(line: error.line, column: error.column),
            message: "not valid JSON: \(error)")
    }

    /// `FILE:LINE:COLUMN: JSON-PATH[: column N]: what to fix`, the form editors and
    /// terminals link to the place (`column N` is the column within an expression); without
    /// a location, `FILE: JSON-PATH[: column N]: what to fix`. A warning's message begins
    /// with `warning: `.
    public var description: String {
        let place = location.map { "\(file):\($0.line):\($0.column)" } ?? file
        let prefix = severity == .warning ? "warning: " : ""
        return "\(place): \(path)\(column.map { ": column \($0)" } ?? ""): \(prefix)\(message)"
    }
}

/// Every problem found in a set of definitions; loading reports them all at once.
public struct DefinitionErrors: Error, Hashable, Sendable, CustomStringConvertible {
    public var problems: [DefinitionProblem]

    public init(_ problems: [DefinitionProblem]) {
        self.problems = problems
    }

    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}

/// A definition file's name and contents; the core does no I/O, its callers read files.
public struct DefinitionFile: Sendable {
    public var name: String
    public var bytes: [UInt8]

    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
}
