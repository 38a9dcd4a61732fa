import Glibc
public import TabulaCore
import TabulaPlatform

/// CLDR's plural rules and number formats, from the system's ICU (Debian `libicu72`), the
/// reference implementation of CLDR. ICU is loaded with `dlopen` when a catalogue first has
/// string tables, like libpq: the binary does not link it, and a process without tables
/// never maps its data.
public struct ICULocaleRules: LocaleRules {
    public init() {}

    public func numbers(for locale: String) throws(LocaleRulesError) -> any LocaleNumbers {
        let library = try ICU.shared.get()
        return try library.numbers(for: locale)
    }
}

/// ICU's functions, the languages it has data for, and the rules of each locale asked for
/// so far (kept for the life of the process: there are as many as the tables have locales).
final class ICU: Sendable {
    typealias ErrorCode = Int32
    typealias Status = UnsafeMutablePointer<ErrorCode>?
    typealias Keyword = UnsafeMutablePointer<UInt16>?

    /// The C functions used, looked up by name (each version's symbols carry its number).
    struct Functions {
        let openPluralRules: @convention(c) (UnsafePointer<CChar>?, Status) -> OpaquePointer?
        let pluralKeywords: @convention(c) (OpaquePointer?, Status) -> OpaquePointer?
        let selectFormatted: @convention(c) (OpaquePointer?, OpaquePointer?, Keyword, Int32, Status) -> Int32
        let nextInEnumeration: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, Status) -> UnsafePointer<CChar>?
        let closeEnumeration: @convention(c) (OpaquePointer?) -> Void
        let openFormatter: @convention(c) (UnsafePointer<UInt16>?, Int32, UnsafePointer<CChar>?, Status) -> OpaquePointer?
        let openResult: @convention(c) (Status) -> OpaquePointer?
        let formatDouble: @convention(c) (OpaquePointer?, Double, OpaquePointer?, Status) -> Void
        let resultToString: @convention(c) (OpaquePointer?, Keyword, Int32, Status) -> Int32
        let closeResult: @convention(c) (OpaquePointer?) -> Void
        let availableLocaleCount: @convention(c) () -> Int32
        let availableLocale: @convention(c) (Int32) -> UnsafePointer<CChar>?

        /// Each function by its name in the library, or the name of the first one missing.
        init(_ lookup: (String) -> UnsafeMutableRawPointer?) throws(ICUFunctionMissing) {
            func function<Function>(_ name: String) throws(ICUFunctionMissing) -> Function {
                guard let address = lookup(name) else { throw ICUFunctionMissing(name: name) }
                return unsafeBitCast(address, to: Function.self)
            }
            openPluralRules = try function("uplrules_open")
            pluralKeywords = try function("uplrules_getKeywords")
            selectFormatted = try function("uplrules_selectFormatted")
            nextInEnumeration = try function("uenum_next")
            closeEnumeration = try function("uenum_close")
            openFormatter = try function("unumf_openForSkeletonAndLocale")
            openResult = try function("unumf_openResult")
            formatDouble = try function("unumf_formatDouble")
            resultToString = try function("unumf_resultToString")
            closeResult = try function("unumf_closeResult")
            availableLocaleCount = try function("uloc_countAvailable")
            availableLocale = try function("uloc_getAvailable")
        }
    }

    struct ICUFunctionMissing: Error {
        let name: String
    }

    let functions: Functions
    /// The languages (first subtags, lower case) of the locales ICU has data for.
    private let languages: Set<String>
    private let byLocale = Locked<[String: ICUNumbers]>([:])

    static let shared: Result<ICU, LocaleRulesError> = load()

    /// The oldest and newest ICU versions looked for: Debian 12 has 72.
    private static let versions = 64...99

    private static func load() -> Result<ICU, LocaleRulesError> {
        for version in versions.reversed() {
            guard let library = dlopen("libicui18n.so.\(version)", RTLD_NOW | RTLD_LOCAL) else { continue }
            // The library's handle finds its dependency's (libicuuc) symbols too; each
            // version's symbols carry its number.
            let functions: Functions
            do {
                functions = try Functions { name in dlsym(library, "\(name)_\(version)") ?? dlsym(library, name) }
            } catch {
                return .failure(LocaleRulesError("libicui18n.so.\(version) lacks \(error.name); install libicu72 (ICU 64 or newer)"))
            }
            return .success(ICU(functions))
        }
        return .failure(LocaleRulesError("cannot load ICU (libicui18n.so.N); install the libicu72 package to serve string tables"))
    }

    private init(_ functions: Functions) {
        self.functions = functions
        var languages: Set<String> = []
        for index in 0..<functions.availableLocaleCount() {
            guard let name = functions.availableLocale(index) else { continue }
            languages.insert(String(cString: name).split(separator: "_").first.map { $0.lowercased() } ?? "")
        }
        self.languages = languages
    }

    func numbers(for locale: String) throws(LocaleRulesError) -> ICUNumbers {
        if let known = byLocale.withLock({ $0[locale] }) { return known }
        // ICU falls back to its root rules for a language it does not know, silently: a
        // table named after a mistyped locale would write every number as `other`.
        let language = locale.split(separator: "-").first.map { $0.lowercased() } ?? ""
        guard languages.contains(language) else {
            throw LocaleRulesError("ICU has no data for the language \"\(language)\"; name a string table after a locale, such as fr.json or pt-BR.json")
        }
        // ICU's locale ids separate subtags with '_'.
        let id = String(locale.map { $0 == "-" ? "_" : $0 })
        var status: ErrorCode = 0
        let rules = functions.openPluralRules(id, &status)
        guard status <= 0, let rules else { throw LocaleRulesError("ICU has no plural rules for \(locale) (error \(status))") }
        let formatter = functions.openFormatter(nil, 0, id, &status)
        guard status <= 0, let formatter else { throw LocaleRulesError("ICU has no number format for \(locale) (error \(status))") }
        let numbers = ICUNumbers(functions: functions, rules: rules, formatter: formatter, categories: categories(of: rules))
        return byLocale.withLock { known in
            if let existing = known[locale] { return existing }
            known[locale] = numbers
            return numbers
        }
    }

    /// The plural forms a locale's rules use.
    private func categories(of rules: OpaquePointer) -> Set<PluralCategory> {
        var status: ErrorCode = 0
        guard let keywords = functions.pluralKeywords(rules, &status), status <= 0 else { return [.other] }
        defer { functions.closeEnumeration(keywords) }
        var categories: Set<PluralCategory> = []
        var length: Int32 = 0
        while let keyword = functions.nextInEnumeration(keywords, &length, &status), status <= 0 {
            if let category = PluralCategory(rawValue: String(cString: keyword)) { categories.insert(category) }
        }
        return categories
    }
}

/// One locale's ICU objects. ICU documents both as safe to use from several threads at
/// once: plural rules are only read, and a number formatter is immutable (each format has
/// its own result).
final class ICUNumbers: LocaleNumbers, @unchecked Sendable {
    private let functions: ICU.Functions
    private let rules: OpaquePointer
    private let formatter: OpaquePointer
    let pluralCategories: Set<PluralCategory>
    /// The text and form of each whole number below `smallNumbers.count`, worked out when
    /// the rules are built: counts are what plural messages take, and asking ICU costs
    /// microseconds a call (`tabula-core-bench`, "render the settings screen").
    private let smallNumbers: [(text: String, category: PluralCategory)]
    static let smallNumberCount = 128

    init(functions: ICU.Functions, rules: OpaquePointer, formatter: OpaquePointer, categories: Set<PluralCategory>) {
        self.functions = functions
        self.rules = rules
        self.formatter = formatter
        pluralCategories = categories
        smallNumbers = (0..<Self.smallNumberCount).map { number in
            let value = Double(number)
            return (
                Self.askFormat(value, functions: functions, formatter: formatter),
                Self.askCategory(value, functions: functions, rules: rules, formatter: formatter)
            )
        }
    }

    /// The form of the number as `format` writes it (so 1.0000001, written "1", is `one`).
    func pluralCategory(of number: Double) -> PluralCategory {
        if let index = Self.smallIndex(number), index < smallNumbers.count { return smallNumbers[index].category }
        return Self.askCategory(number, functions: functions, rules: rules, formatter: formatter)
    }

    func format(_ number: Double) -> String {
        if let index = Self.smallIndex(number), index < smallNumbers.count { return smallNumbers[index].text }
        return Self.askFormat(number, functions: functions, formatter: formatter)
    }

    private static func smallIndex(_ number: Double) -> Int? {
        guard number >= 0, number < Double(smallNumberCount), number.rounded(.towardZero) == number else { return nil }
        return Int(number)
    }

    private static func askCategory(
        _ number: Double, functions: ICU.Functions, rules: OpaquePointer, formatter: OpaquePointer
    ) -> PluralCategory {
        formatted(number, functions: functions, formatter: formatter) { result, status in
            var keyword = [UInt16](repeating: 0, count: 16)
            let length = keyword.withUnsafeMutableBufferPointer { functions.selectFormatted(rules, result, $0.baseAddress, Int32($0.count), &status) }
            guard status <= 0, length > 0, length <= keyword.count else { return .other }
            return PluralCategory(rawValue: String(decoding: keyword[0..<Int(length)], as: UTF16.self)) ?? .other
        } ?? .other
    }

    private static func askFormat(_ number: Double, functions: ICU.Functions, formatter: OpaquePointer) -> String {
        formatted(number, functions: functions, formatter: formatter) { result, status in
            var text = [UInt16](repeating: 0, count: 64)
            let length = text.withUnsafeMutableBufferPointer { functions.resultToString(result, $0.baseAddress, Int32($0.count), &status) }
            guard status <= 0, length >= 0, length <= text.count else { return nil }
            return String(decoding: text[0..<Int(length)], as: UTF16.self)
        } ?? FieldValue.number(number).json.canonicalText
    }

    /// `body` with the number formatted, or `nil` when ICU fails.
    private static func formatted<Value>(
        _ number: Double, functions: ICU.Functions, formatter: OpaquePointer, _ body: (OpaquePointer, inout ICU.ErrorCode) -> Value?
    ) -> Value? {
        var status: ICU.ErrorCode = 0
        guard let result = functions.openResult(&status), status <= 0 else { return nil }
        defer { functions.closeResult(result) }
        functions.formatDouble(formatter, number, result, &status)
        guard status <= 0 else { return nil }
        return body(result, &status)
    }
}
