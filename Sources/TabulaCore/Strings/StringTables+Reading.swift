extension StringTables {
    /// The longest message key, in bytes.
    static let maxKeyBytes = 200

    /// Keys are names definitions write after `@`: letters, digits, '.', '_' and '-'.
    public static func isKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= maxKeyBytes && key.unicodeScalars.allSatisfy(isKeyCharacter)
    }

    /// A character of a message key (the expression lexer reads `@key` with it).
    static func isKeyCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
    }

    /// Reads the tables of a strings directory, one file `LOCALE.json` each (read by the
    /// caller): a JSON object of messages by key, each a text or an object of plural forms
    /// with `other` among them. The default locale must have a table. Returns the tables, or
    /// `nil` with every problem (each file's problems with their places); and the warnings:
    /// plural messages that lack a form their locale uses, or have one it never uses.
    public static func load(
        _ files: [DefinitionFile], defaultLocale: String, rules: any LocaleRules
    ) -> (tables: StringTables?, problems: [DefinitionProblem], warnings: [DefinitionProblem]) {
        var problems: [DefinitionProblem] = []
        var warnings: [DefinitionProblem] = []
        var tables: [String: [String: Message]] = [:]
        var numbers: [String: any LocaleNumbers] = [:]
        var named: Set<String> = []
        for file in files.sorted(by: { $0.name < $1.name }) {
            var log = ProblemLog(file: file.name)
            let name = file.name.hasSuffix(".json") ? String(file.name.dropLast(5)) : file.name
            guard let locale = LanguageTag.canonical(name) else {
                log.add(.structure, at: "$", "a string table is named after its locale, a BCP 47 tag such as fr.json or pt-BR.json; \"\(name)\" is not one")
                problems += log.problems
                continue
            }
            if !named.insert(locale).inserted {
                log.add(.structure, at: "$", "another file already holds the table of \(locale) (tags match in any case)")
            }
            var unreadable: DefinitionProblem?
            do {
                let json = try JSONParser().parse(file.bytes)
                tables[locale] = readTable(json, path: "$", log: &log, allowsSchema: true)
            } catch {
                unreadable = .invalidJSON(error, file: file.name)
            }
            do {
                let rules = try rules.numbers(for: locale)
                numbers[locale] = rules
                var formLog = ProblemLog(file: file.name)
                checkForms(tables[locale] ?? [:], of: locale, uses: rules.pluralCategories, log: &formLog)
                warnings += located(
                    formLog.problems.map {
                        var warning = $0; warning.severity = .warning; return warning
                    }, in: file.bytes)
            } catch {
                log.add(.structure, at: "$", "the plural and number rules of \(locale) are not available: \(error)")
            }
            problems += located(log.problems, in: file.bytes) + (unreadable.map { [$0] } ?? [])
        }
        let canonicalDefault = LanguageTag.canonical(defaultLocale) ?? defaultLocale
        if !named.isEmpty, !named.contains(canonicalDefault) {
            problems.append(
                DefinitionProblem(
                    kind: .structure, file: "\(canonicalDefault).json", path: "$",
                    message:
                        "the default locale \(canonicalDefault) has no table; add \(canonicalDefault).json, which holds every message, or choose another default locale (\(tables.keys.sorted().joined(separator: ", ")))"
                ))
        }
        guard problems.isEmpty else { return (nil, problems, warnings) }
        return (StringTables(defaultLocale: canonicalDefault, tables: tables, numbers: numbers), [], warnings)
    }

    /// Plural messages whose forms are not those the locale uses: a form it uses that the
    /// message lacks takes the `other` text, and a form it never uses is never shown.
    private static func checkForms(_ table: [String: Message], of locale: String, uses categories: Set<PluralCategory>, log: inout ProblemLog) {
        let uses = categories.sorted().map(\.rawValue).joined(separator: ", ")
        for key in table.keys.sorted() {
            guard case .plural(let forms)? = table[key] else { continue }
            let missing = categories.subtracting(forms.keys).sorted().map(\.rawValue)
            let unused = Set(forms.keys).subtracting(categories).sorted().map(\.rawValue)
            if !missing.isEmpty {
                log.add(
                    .missingTranslation, at: "$[\"\(key)\"]",
                    "no \(missing.joined(separator: ", ")) form: \(locale) uses \(uses), and numbers in the missing forms get the other text")
            }
            if !unused.isEmpty {
                log.add(
                    .missingTranslation, at: "$[\"\(key)\"]",
                    "the \(unused.joined(separator: ", ")) form is never shown: \(locale) uses \(uses) (write exact numbers in the text of their form)")
            }
        }
    }

    /// Reads the tables a definition's document holds (``json``).
    static func reading(document json: JSONValue, rules: any LocaleRules, log: inout ProblemLog) -> StringTables? {
        guard case .object(let object) = json, case .string(let defaultLocale)? = object["defaultLocale"],
            case .object(let tablesObject)? = object["tables"]
        else {
            log.add(.structure, at: "$.strings", "expected {\"defaultLocale\", \"tables\"}")
            return nil
        }
        var tables: [String: [String: Message]] = [:]
        var numbers: [String: any LocaleNumbers] = [:]
        for (locale, table) in tablesObject.pairs {
            tables[locale] = readTable(table, path: "$.strings.tables.\(locale)", log: &log, allowsSchema: false)
            do {
                numbers[locale] = try rules.numbers(for: locale)
            } catch {
                log.add(.structure, at: "$.strings.tables.\(locale)", "the plural and number rules of \(locale) are not available: \(error)")
            }
        }
        return StringTables(defaultLocale: defaultLocale, tables: tables, numbers: numbers)
    }

    private static func readTable(_ json: JSONValue, path: String, log: inout ProblemLog, allowsSchema: Bool) -> [String: Message] {
        guard case .object(let object) = json else {
            log.wrongType(at: path, expected: "an object of messages by key, such as {\"settings.title\": \"Settings\"}", found: json)
            return [:]
        }
        var table: [String: Message] = [:]
        for (key, value) in object.pairs {
            let keyPath = "\(path)[\"\(key)\"]"
            if allowsSchema, key == ScreenMember.schema.rawValue {
                if value.stringValue == nil { log.wrongType(at: keyPath, expected: "a string (the JSON Schema editors check the file with)", found: value) }
                continue
            }
            guard isKey(key) else {
                log.add(.structure, at: keyPath, "a message key is letters, digits, '.', '_' and '-' (at most \(maxKeyBytes) bytes)")
                continue
            }
            if let message = readMessage(value, path: keyPath, log: &log) { table[key] = message }
        }
        return table
    }

    private static func readMessage(_ json: JSONValue, path: String, log: inout ProblemLog) -> Message? {
        switch json {
        case .string(let text):
            return .text(MessageText(text))
        case .object(let object):
            var forms: [PluralCategory: MessageText] = [:]
            for (name, value) in object.pairs {
                guard let category = PluralCategory(rawValue: name) else {
                    let names = PluralCategory.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    log.add(.structure, at: "\(path).\(name)", "\"\(name)\" is not a plural form; CLDR's forms are \(names)")
                    continue
                }
                guard case .string(let text) = value else {
                    log.wrongType(at: "\(path).\(name)", expected: "a string", found: value)
                    continue
                }
                forms[category] = MessageText(text)
            }
            guard forms[.other] != nil else {
                log.add(.structure, at: path, "a plural message needs an \"other\" form: the form of every number the language's other forms do not take")
                return nil
            }
            return .plural(forms)
        default:
            log.wrongType(
                at: path, expected: "a text, or an object of plural forms such as {\"one\": \"{count} item\", \"other\": \"{count} items\"}", found: json)
            return nil
        }
    }

    private static func located(_ problems: [DefinitionProblem], in bytes: [UInt8]) -> [DefinitionProblem] {
        problems.map { problem in
            var located = problem
            located.location = JSONSourceMap.position(of: problem.path, in: bytes, character: nil)
            return located
        }
    }
}
