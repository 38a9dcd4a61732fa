/// The texts of a catalogue in every locale it has: one table of messages per locale (a
/// file `LOCALE.json` of the strings directory), and the default locale, whose table has
/// every message a definition names. A text is looked up along the locale's fallback chain
/// (`fr-CH`, then `fr`, then the default locale) and written with the rules of the locale
/// whose table it comes from: its plural form and number format.
///
/// A class: a definition holds the messages it names, shared by every render.
public final class StringTables: Sendable {
    public let defaultLocale: String
    /// Messages by key, by locale (as the tables are named).
    public let tables: [String: [String: Message]]
    /// The locales that have a table, sorted.
    public let locales: [String]
    /// The locale of each table by its tag in lower case: tags match in any case.
    private let localeByLowercasedTag: [String: String]
    private let numbers: [String: any LocaleNumbers]
    /// The fallback chain of each table's own tag, worked out once: most clients name a
    /// locale the catalogue has, and every message they read looks its chain up.
    private let chainByLocale: [String: [String]]
    /// For each table's own locale, the texts of the messages it reads that have one text
    /// and no placeholder (most labels of a screen), by key: written once here, read
    /// without walking the chain or writing them again on every render.
    private let fixedTextsByLocale: [String: [String: String]]

    /// Tables whose locales' rules were had from `rules` (``load(_:defaultLocale:rules:)``
    /// reports those that could not be).
    init(defaultLocale: String, tables: [String: [String: Message]], numbers: [String: any LocaleNumbers]) {
        self.defaultLocale = defaultLocale
        self.tables = tables
        locales = tables.keys.sorted()
        self.numbers = numbers
        var byLowercasedTag: [String: String] = [:]
        for locale in tables.keys { byLowercasedTag[locale.lowercased()] = locale }
        localeByLowercasedTag = byLowercasedTag
        var chains: [String: [String]] = [:]
        for locale in tables.keys { chains[locale] = Self.chain(for: locale, defaultLocale: defaultLocale, tables: byLowercasedTag) }
        chainByLocale = chains
        var fixedTexts: [String: [String: String]] = [:]
        for (locale, chain) in chains {
            var resolved: Set<String> = []
            var texts: [String: String] = [:]
            // The default locale's client reads its own table only (`message(_:for:)`).
            for table in locale == defaultLocale ? [defaultLocale] : chain {
                for (key, message) in tables[table] ?? [:] where resolved.insert(key).inserted {
                    if let text = message.fixedText { texts[key] = text }
                }
            }
            fixedTexts[locale] = texts
        }
        fixedTextsByLocale = fixedTexts
    }

    /// The locales whose tables a client in `locale` reads, in order: the tag and its
    /// truncations that have a table, then the default locale.
    public func fallbackChain(for locale: String?) -> [String] {
        guard let locale else { return [defaultLocale] }
        return chainByLocale[locale] ?? Self.chain(for: locale, defaultLocale: defaultLocale, tables: localeByLowercasedTag)
    }

    private static func chain(for locale: String, defaultLocale: String, tables: [String: String]) -> [String] {
        var chain: [String] = []
        for tag in LanguageTag.truncations(locale) {
            if let table = tables[tag.lowercased()], !chain.contains(table) { chain.append(table) }
        }
        if !chain.contains(defaultLocale) { chain.append(defaultLocale) }
        return chain
    }

    /// The message `key` for a client in `locale`, and the locale of the table it is from.
    public func message(_ key: String, for locale: String?) -> (message: Message, locale: String)? {
        if locale == nil || locale == defaultLocale { return tables[defaultLocale]?[key].map { ($0, defaultLocale) } }
        for table in fallbackChain(for: locale) {
            if let message = tables[table]?[key] { return (message, table) }
        }
        return nil
    }

    /// The text of `key` for a client in `locale`, with `arguments` in its placeholders and
    /// its plural form chosen by `count`; the key itself if no table has it (a definition
    /// that loaded names only keys its default table has).
    public func text(_ key: String, locale: String?, arguments: [String: FieldValue]) -> String {
        if let text = fixedTextsByLocale[locale ?? defaultLocale]?[key] { return text }
        guard let (message, table) = message(key, for: locale) else { return key }
        return message.text(arguments, numbers: numbers[table])
    }

    /// The locale of the catalogue that best serves an `Accept-Language` header, or `nil` for
    /// none (the default locale serves). Each range, best first, is looked up as RFC 4647
    /// says (`fr-CH` is served by `fr`), and failing that takes the first table of its
    /// language (`pt` and `pt-PT` by `pt-BR`); `*` takes the default locale, or the first
    /// table the header does not refuse with `q=0`.
    public func negotiate(acceptLanguage header: String) -> String? {
        let (ranges, refused) = LanguageTag.ranges(acceptLanguage: header)
        let acceptable = { (table: String) in !refused.contains(table.lowercased()) }
        for range in ranges {
            if range == "*" {
                return acceptable(defaultLocale) ? defaultLocale : locales.first(where: acceptable)
            }
            for tag in LanguageTag.truncations(range) {
                if let table = localeByLowercasedTag[tag.lowercased()], acceptable(table) { return table }
            }
            let language = (range.split(separator: "-").first.map(String.init) ?? range).lowercased()
            if let table = locales.first(where: { $0.lowercased().hasPrefix(language + "-") && acceptable($0) }) { return table }
        }
        return nil
    }

    /// The tables with only the messages of `keys`: what one definition names. A table with
    /// none of them is left out (its clients read the same texts without it), so that a
    /// table added for other screens is no new version of this one.
    func restricted(to keys: Set<String>) -> StringTables {
        var restricted: [String: [String: Message]] = [:]
        for (locale, table) in tables {
            let messages = table.filter { keys.contains($0.key) }
            if !messages.isEmpty || locale == defaultLocale { restricted[locale] = messages }
        }
        return StringTables(defaultLocale: defaultLocale, tables: restricted, numbers: numbers)
    }

    /// `{"defaultLocale": TAG, "tables": {TAG: {KEY: MESSAGE}}}`, as a definition's document
    /// holds the messages it names.
    var json: JSONValue {
        var tablesObject = JSONObject()
        for (locale, table) in tables {
            var messages = JSONObject()
            for (key, message) in table { messages[key] = message.json }
            tablesObject[locale] = .object(messages)
        }
        var object = JSONObject()
        object["defaultLocale"] = .string(defaultLocale)
        object["tables"] = .object(tablesObject)
        return .object(object)
    }
}
