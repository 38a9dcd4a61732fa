/// All screen definitions a service serves, checked together: screen ids are unique,
/// `navigate` targets exist, and state keys and custom kinds declared by several screens
/// agree. State is per session and shared by all screens of the catalogue.
public struct Catalogue: Sendable {
    /// The screens, ordered by id.
    public let screens: [ScreenDefinition]
    public let schema: StateSchema
    /// The texts of every locale; `nil` when the catalogue has no string tables.
    public let strings: StringTables?
    /// What loading found that does not keep the catalogue from serving: messages a locale
    /// lacks, whose clients get the text of the locale it falls back to, and plural messages
    /// whose forms are not those of their locale.
    public let warnings: [DefinitionProblem]
    private let indexByID: [String: Int]

    /// Loads definitions from files (read by the caller), with the string tables of
    /// `strings`, reporting every problem of every file at once.
    /// `open` actions may write URLs of `urlSchemes` only.
    public static func load(
        _ files: [DefinitionFile], strings sources: StringSources? = nil, urlSchemes: URLSchemes = .standardOnly
    ) throws(DefinitionErrors) -> Catalogue {
        var problems: [DefinitionProblem] = []
        var strings: StringTables?
        var tableWarnings: [DefinitionProblem] = []
        if let sources, !sources.files.isEmpty {
            let loaded = StringTables.load(sources.files, defaultLocale: sources.defaultLocale, rules: sources.rules)
            strings = loaded.tables
            problems += loaded.problems
            tableWarnings = loaded.warnings
        }
        // With broken tables, every message would be reported missing too: those tables'
        // problems are the ones to fix first.
        let tablesBroken = !problems.isEmpty
        var messageUses: [(key: String, file: String, path: String)] = []
        var readerWarnings: [DefinitionProblem] = []
        var screens: [ScreenDefinition] = []
        var schema = StateSchema()
        var kindsByName: [String: (declaration: KindDeclaration, file: String)] = [:]
        var stateOwners: [String: String] = [:]
        var screenFiles: [String: String] = [:]
        var navigations: [(target: String, path: String, file: String, withItem: Bool)] = []
        var itemScreens: Set<String> = []

        let parsed = files.sorted(by: { $0.name < $1.name }).map { file -> (file: DefinitionFile, json: Result<JSONValue, JSONParseError>) in
            (file, Result { () throws(JSONParseError) in try JSONParser().parse(file.bytes) })
        }
        // State is shared by every screen, so a screen may read a key that only another one
        // declares: expressions are checked against the keys of all files (the first file
        // to declare a key gives its type; a disagreement is reported below).
        var sharedState: [String: StateDeclaration] = [:]
        for case (_, .success(let json)) in parsed {
            for (key, declaration) in DefinitionReader.declaredState(json) where sharedState[key] == nil {
                sharedState[key] = declaration
            }
        }

        for (file, result) in parsed {
            let json: JSONValue
            switch result {
            case .success(let value):
                json = value
            case .failure(let error):
                problems.append(.invalidJSON(error, file: file.name))
                continue
            }
            var reader = DefinitionReader(file: file.name, sharedState: sharedState, strings: strings, urlSchemes: urlSchemes)
            let screen = reader.readScreen(json)
            var log = reader.log
            messageUses += reader.messageUses.map { (key: $0.key, file: file.name, path: $0.value) }
            for (key, declaration) in reader.state {
                if let existing = schema.add(key, declaration) {
                    log.add(
                        .conflictingDeclaration, at: "$.state.\(key)",
                        "state key \"\(key)\" is declared by \(stateOwners[key] ?? "another screen") as \(existing.type) with default \(existing.defaultValue.json.canonicalText); screens that share a key must declare the same type and default"
                    )
                } else if stateOwners[key] == nil {
                    stateOwners[key] = file.name
                }
            }
            for (name, declaration) in reader.kinds.sorted(by: { $0.key < $1.key }) {
                if let existing = kindsByName[name], existing.declaration != declaration {
                    log.add(
                        .conflictingDeclaration, at: "$.kinds.\(name)",
                        "kind \"\(name)\" is declared with other fields by \(existing.file); a kind is one reuse identifier, so declare it the same everywhere")
                } else if kindsByName[name] == nil {
                    kindsByName[name] = (declaration, file.name)
                }
            }
            // A screen with problems of its own keeps its id, so that navigations to it are
            // not reported as well.
            if let id = reader.screenID {
                if let first = screenFiles[id] {
                    log.add(.duplicateScreenID, at: "$.id", "screen id \"\(id)\" is already used by \(first)")
                } else {
                    screenFiles[id] = file.name
                    if reader.declaresItem { itemScreens.insert(id) }
                    if let screen { screens.append(screen) }
                }
            }
            navigations += reader.navigations.map { ($0.target, $0.path, file.name, $0.withItem) }
            readerWarnings += log.warnings
            problems += tablesBroken ? log.problems.filter { $0.kind != .unknownMessage } : log.problems
        }
        for navigation in navigations {
            guard screenFiles[navigation.target] != nil else {
                let known = screenFiles.keys.sorted().joined(separator: ", ")
                problems.append(
                    DefinitionProblem(
                        kind: .unknownScreen, file: navigation.file, path: navigation.path,
                        message: "no screen has id \"\(navigation.target)\"; known screens: \(known.isEmpty ? "none" : known)"))
                continue
            }
            let toItemScreen = itemScreens.contains(navigation.target)
            guard toItemScreen != navigation.withItem else { continue }
            problems.append(
                DefinitionProblem(
                    kind: .structure, file: navigation.file, path: navigation.path,
                    message: toItemScreen
                        ? "\"\(navigation.target)\" shows one item of a list: say which, as in {\"navigate\": \"\(navigation.target)\", \"item\": \"{{item.id}}\"}"
                        : "\"\(navigation.target)\" is not an item screen (it has no \"item\"), so a navigation to it names no item; remove \"item\""))
        }
        guard problems.isEmpty else { throw DefinitionErrors(located(problems, in: files)) }
        let warnings =
            located(readerWarnings, in: files) + tableWarnings + (strings.map { missingTranslations(messageUses, in: $0) } ?? [])
        return Catalogue(screens: screens, schema: schema, strings: strings, warnings: warnings)
    }

    /// A warning for each message that a locale's tables lack (its own, and those of the
    /// shorter tags it falls back to before the default locale's).
    private static func missingTranslations(
        _ uses: [(key: String, file: String, path: String)], in strings: StringTables
    ) -> [DefinitionProblem] {
        var firstUse: [String: (file: String, path: String)] = [:]
        for use in uses where firstUse[use.key] == nil { firstUse[use.key] = (use.file, use.path) }
        var warnings: [DefinitionProblem] = []
        for locale in strings.locales where locale != strings.defaultLocale {
            let chain = strings.fallbackChain(for: locale).filter { $0 != strings.defaultLocale }
            for key in firstUse.keys.sorted() where !chain.contains(where: { strings.tables[$0]?[key] != nil }) {
                guard let use = firstUse[key] else { continue }
                warnings.append(
                    DefinitionProblem(
                        kind: .missingTranslation, file: "\(locale).json", path: "$", location: SourcePosition(line: 1, column: 1),
                        message:
                            "no message \"\(key)\", which \(use.file) names at \(use.path); clients in \(locale) get the \(strings.defaultLocale) text",
                        severity: .warning))
            }
        }
        return warnings
    }

    /// The problems with their places in their files' text.
    private static func located(_ problems: [DefinitionProblem], in files: [DefinitionFile]) -> [DefinitionProblem] {
        var bytesByName: [String: [UInt8]] = [:]
        for file in files { bytesByName[file.name] = file.bytes }
        return problems.map { problem in
            guard problem.location == nil, let bytes = bytesByName[problem.file] else { return problem }
            var located = problem
            located.location = JSONSourceMap.position(of: problem.path, in: bytes, character: problem.column)
            return located
        }
    }

    init(screens: [ScreenDefinition], schema: StateSchema, strings: StringTables? = nil, warnings: [DefinitionProblem] = []) {
        self.screens = screens.sorted { $0.id < $1.id }
        self.schema = schema
        self.strings = strings
        self.warnings = warnings
        var index: [String: Int] = [:]
        for (position, screen) in self.screens.enumerated() { index[screen.id] = position }
        indexByID = index
    }

    public func screen(id: String) -> ScreenDefinition? {
        indexByID[id].map { screens[$0] }
    }

    /// A new session's state: every key at its default, revision 0.
    public var initialState: SessionState { schema.initialState }
}

/// Where a catalogue's texts come from: the files of its strings directory (read by the
/// caller), one `LOCALE.json` each, the locale that has every message, and the rules that
/// write them.
public struct StringSources: Sendable {
    public var files: [DefinitionFile]
    public var defaultLocale: String
    public var rules: any LocaleRules

    /// The default locale when none is chosen: its table has every message.
    public static let defaultLocale = "en"

    /// Where the string tables of a screens directory are when no other place is given: the
    /// `strings` directory beside it (`Fixtures/strings` for `Fixtures/screens`).
    /// A directory written as `.` or `..` (`tabula validate .` from inside the screens) has
    /// its parent above it, not beside its name.
    public static func directory(besideScreens screens: String) -> String {
        var path = screens
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let last = path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? Substring(path)
        if last == "." || last == ".." { return path + "/../strings" }
        guard let slash = path.lastIndex(of: "/") else { return "strings" }
        return String(path[...slash]) + "strings"
    }

    public init(files: [DefinitionFile], defaultLocale: String, rules: any LocaleRules) {
        self.files = files
        self.defaultLocale = defaultLocale
        self.rules = rules
    }
}
