/// A plural form, as CLDR names them. Which numbers a language puts in each form is the
/// language's plural rules (English: 1 is `one`, everything else `other`; Polish: 2–4 are
/// `few`, 5 `many`); a message holds one text per form its language uses, and always
/// `other`.
public enum PluralCategory: String, CaseIterable, Hashable, Sendable, Comparable {
    case zero, one, two, few, many, other

    public static func < (left: PluralCategory, right: PluralCategory) -> Bool {
        allCases.firstIndex(of: left) ?? 0 < allCases.firstIndex(of: right) ?? 0
    }
}

/// Where the rules of languages come from: CLDR's plural rules and number formats. The core
/// names what it needs; the service gives it from ICU (`ICULocaleRules`), the reference
/// implementation of CLDR, rather than rules written again by hand.
public protocol LocaleRules: Sendable {
    /// The rules of one locale (a BCP 47 tag); an error when they cannot be had.
    func numbers(for locale: String) throws(LocaleRulesError) -> any LocaleNumbers
}

/// One locale's rules for numbers in text.
public protocol LocaleNumbers: Sendable {
    /// The plural forms the locale uses (English `one` and `other`; Polish `one`, `few`,
    /// `many` and `other`).
    var pluralCategories: Set<PluralCategory> { get }
    /// The plural form the locale uses for `number` as ``format(_:)`` writes it (`1.5` is
    /// `other` in English, `one` in French).
    func pluralCategory(of number: Double) -> PluralCategory
    /// `number` as the locale writes it (`1.5` is `1,5` in French).
    func format(_ number: Double) -> String
}

/// Why a locale's rules are not available.
public struct LocaleRulesError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
