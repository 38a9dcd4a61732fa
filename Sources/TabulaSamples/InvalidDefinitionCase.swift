import TabulaCore
import TabulaICU

/// One broken catalogue of `Fixtures/invalid/`: a directory of definition files (with its
/// string tables in `strings/`, if it has them), and in its `expected.txt` what refuses it:
///
/// ```
/// # Why the case is there (comment lines, any number).
/// schema: refuses
/// structure a.json: $: missing required field "title"
/// ```
///
/// The `schema:` line is `schema: refuses` when the JSON Schema (`tabula schema`) refuses a
/// file of the case, or `schema: accepts (beyond a schema: WHAT)` when only `tabula validate`
/// can (expressions, ids, references, agreement between files). The other lines are the
/// problems loading the catalogue reports, in order: each one's kind, a space, and its line
/// of `tabula validate`. `InvalidDefinitionTests` checks the problems; `Scripts/schema-check`
/// checks the schema's verdict and that `tabula validate` refuses every case.
public struct InvalidDefinitionCase: Sendable {
    /// Where the cases are, from the repository's root.
    public static let directory = "Fixtures/invalid"
    public static let expectationFile = "expected.txt"

    public let name: String
    public let files: [DefinitionFile]
    /// The string tables of `strings/`, in the default locale; `nil` without that directory.
    public let strings: StringSources?
    /// The comment lines and the `schema:` line.
    public let preamble: [String]
    /// The expected problems: kind, and `tabula validate`'s line.
    public let problems: [(kind: String, line: String)]

    /// The case `name` of the cases under `root` (the repository's `Fixtures/invalid`); `nil`
    /// when it cannot be read.
    public init?(root: String, name: String) {
        let path = "\(root)/\(name)"
        guard let files = FixtureFiles.definitionFiles(directory: path),
            let text = FixtureFiles.read("\(path)/\(Self.expectationFile)")
        else { return nil }
        self.name = name
        self.files = files
        strings = FixtureFiles.definitionFiles(directory: "\(path)/strings").map {
            StringSources(files: $0, defaultLocale: StringSources.defaultLocale, rules: ICULocaleRules())
        }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
        preamble = lines.filter { $0.hasPrefix("#") || $0.hasPrefix("schema:") }
        problems = lines.filter { !$0.hasPrefix("#") && !$0.hasPrefix("schema:") }.map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// The names of the cases under `root`.
    public static func names(root: String) -> [String] {
        FixtureFiles.entries(directory: root) ?? []
    }

    /// A problem as an expected line: its kind, a space, its description.
    public static func line(_ problem: DefinitionProblem) -> String {
        "\(problem.kind) \(problem.description)"
    }

    /// The expectation file's text with these problems (to rewrite it after an intended change).
    public func expectationText(problems: [DefinitionProblem]) -> String {
        (preamble + problems.map(Self.line)).map { $0 + "\n" }.joined()
    }
}
