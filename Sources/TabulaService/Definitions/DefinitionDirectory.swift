public import TabulaCore
import TabulaICU
public import TabulaPlatform

/// A directory of screen definitions: every `*.json` file directly inside it (names that
/// start with a dot, such as editors' swap files, are left out), and the directory of their
/// string tables, one `LOCALE.json` each.
public struct DefinitionDirectory: Sendable {
    public let path: String
    /// The string tables' directory.
    public let strings: String
    /// Whether the string tables' directory was named: a named one must exist, while the
    /// one beside the screens is optional.
    private let stringsRequired: Bool
    /// The locale whose table has every message.
    public let defaultLocale: String
    /// The URL schemes the definitions' `open` actions may write.
    public let urlSchemes: URLSchemes

    /// The definitions in `path`, with the string tables in `strings` (by default the
    /// `strings` directory beside `path`, if there is one).
    public init(
        _ path: String, strings: String? = nil, defaultLocale: String = StringSources.defaultLocale, urlSchemes: URLSchemes = .standardOnly
    ) {
        self.path = path
        self.strings = strings ?? StringSources.directory(besideScreens: path)
        stringsRequired = strings != nil
        self.defaultLocale = defaultLocale
        self.urlSchemes = urlSchemes
    }

    /// The directories a reload reads: the screens', and the string tables' when it exists.
    public var watchedDirectories: [String] {
        Files.stamp(strings) == nil && !stringsRequired ? [path] : [path, strings]
    }

    /// The string tables, each read whole; `nil` when there is no strings directory (and
    /// none was named).
    public func stringFiles() throws(FileError) -> [DefinitionFile]? {
        if !stringsRequired, Files.stamp(strings) == nil { return nil }
        var files: [DefinitionFile] = []
        for name in try Files.names(in: strings, endingIn: ".json") {
            files.append(DefinitionFile(name: name, bytes: try Files.read("\(strings)/\(name)")))
        }
        return files
    }

    /// Every definition file, read whole; a directory without any is an error.
    public func files() throws(FileError) -> [DefinitionFile] {
        let names = try Files.names(in: path, endingIn: ".json")
        guard !names.isEmpty else { throw FileError(path: path, reason: "no screen definitions (*.json files) found") }
        var files: [DefinitionFile] = []
        for name in names {
            files.append(DefinitionFile(name: name, bytes: try Files.read("\(path)/\(name)")))
        }
        return files
    }

    /// The catalogue of every file, checked together, or every problem found.
    public func load() -> Result<Catalogue, CatalogueProblems> {
        do throws(FileError) {
            let files = try files()
            let sources = try stringFiles().map { StringSources(files: $0, defaultLocale: defaultLocale, rules: ICULocaleRules()) }
            do throws(DefinitionErrors) {
                return .success(try Catalogue.load(files, strings: sources, urlSchemes: urlSchemes))
            } catch {
                return .failure(CatalogueProblems(error.problems.map(CatalogueProblem.definition)))
            }
        } catch {
            return .failure(CatalogueProblems([.unreadable(error)]))
        }
    }
}

/// Why a directory's definitions could not be served.
public enum CatalogueProblem: Hashable, Sendable, CustomStringConvertible {
    /// A problem in a definition (or between definitions).
    case definition(DefinitionProblem)
    /// The directory or a file could not be read.
    case unreadable(FileError)
    /// The store could not keep the definitions, or their initial state breaks the state
    /// limits.
    case refused(String)

    public var description: String {
        switch self {
        case .definition(let problem): problem.description
        case .unreadable(let error): error.description
        case .refused(let reason): reason
        }
    }

    /// `{"file", "line", "column", "path", "message"}`, with `null` for what is not known.
    func write(to writer: inout JSONWriter) {
        let (file, location, path, message): (String?, SourcePosition?, String?, String) =
            switch self {
            case .definition(let problem): (problem.file, problem.location, problem.path, problem.message)
            case .unreadable(let error): (error.path, nil, nil, error.reason)
            case .refused(let reason): (nil, nil, nil, reason)
            }
        writer.beginObject()
        writer.key("column"); writer.optional(location?.column) { $0.int($1) }
        writer.key("file"); writer.optional(file) { $0.string($1) }
        writer.key("line"); writer.optional(location?.line) { $0.int($1) }
        writer.key("message"); writer.string(message)
        writer.key("path"); writer.optional(path) { $0.string($1) }
        writer.endObject()
    }
}

/// Every problem that kept a directory's definitions from being served.
public struct CatalogueProblems: Error, Hashable, Sendable, CustomStringConvertible {
    public var problems: [CatalogueProblem]

    public init(_ problems: [CatalogueProblem]) {
        self.problems = problems
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

extension JSONWriter {
    /// `value` as `write` writes it, or `null`.
    fileprivate mutating func optional<Value>(_ value: Value?, _ write: (inout JSONWriter, Value) -> Void) {
        if let value { write(&self, value) } else { null() }
    }
}
