import TabulaCore
import TabulaICU
import TabulaSamples
import Testing

/// Strings per locale: CLDR plural forms and number formats (from ICU), the fallback chain
/// of a locale's tables, `Accept-Language` negotiation, a language switch as a change set,
/// and what loading says about tables that lack a message.
@Suite struct LocalizationTests {
    static let numbers: [Double] = [0, 1, 2, 5, 22, 1.5]

    /// CLDR's plural rules at 0, 1, 2, 5, 22 and 1.5: English takes `one` for 1 only; French
    /// for 0 and 1 and every number below 2 (1.5 too); Polish `one` for 1, `few` for 2–4 and
    /// 22–24, `many` for 0, 5–21 and 25, and `other` for fractions.
    @Test(arguments: [
        ("en", [PluralCategory.other, .one, .other, .other, .other, .other]),
        ("fr", [.one, .one, .other, .other, .other, .one]),
        ("pl", [.many, .one, .few, .many, .few, .other]),
    ])
    func pluralFormsFollowCLDR(locale: String, expected: [PluralCategory]) throws {
        let numbers = try ICULocaleRules().numbers(for: locale)
        #expect(Self.numbers.map(numbers.pluralCategory) == expected)
    }

    /// The settings footer, in the three bundled languages, at each number of networks.
    @Test(arguments: [
        ("en", ["0 known networks", "1 known network", "2 known networks", "5 known networks", "22 known networks", "1.5 known networks"]),
        ("fr", ["0 réseau connu", "1 réseau connu", "2 réseaux connus", "5 réseaux connus", "22 réseaux connus", "1,5 réseau connu"]),
        ("pl", ["0 znanych sieci", "1 znana sieć", "2 znane sieci", "5 znanych sieci", "22 znane sieci", "1,5 znanej sieci"]),
    ])
    func theFooterAgreesWithItsNumber(locale: String, expected: [String]) throws {
        let strings = try #require(try fixtureCatalogue.strings)
        let texts = Self.numbers.map { strings.text("settings.knownNetworks", locale: locale, arguments: ["count": .number($0)]) }
        #expect(texts == expected)
        // Rendered, for the whole numbers a list can have.
        let settings = try fixtureScreen("settings")
        for (count, text) in zip(Self.numbers, expected) where count.rounded() == count {
            var state = try fixtureCatalogue.initialState
            state.client.locale = locale
            state.values["networks"] = .list((0..<Int(count)).map { Record(id: "n\($0)", fields: ["name": .string("N\($0)"), "secure": .bool(true)]) })
            #expect(render(settings, state).sections.first?.footer == .textFooter(text: text), "\(locale) \(count)")
        }
    }

    @Test func numbersAreWrittenAsTheLocaleWritesThem() throws {
        let rules = ICULocaleRules()
        #expect(try rules.numbers(for: "en").format(1234.5) == "1,234.5")
        #expect(try rules.numbers(for: "fr").format(1234.5) == "1\u{202F}234,5")
        #expect(try rules.numbers(for: "pl").format(12345.5) == "12\u{00A0}345,5")
        #expect(try rules.numbers(for: "en").format(22) == "22")
    }

    @Test func aLocaleFallsBackToShorterTagsThenTheDefault() throws {
        let strings = try #require(try fixtureCatalogue.strings)
        #expect(strings.locales == ["en", "fr", "pl"])
        #expect(strings.fallbackChain(for: "fr-CH") == ["fr", "en"])
        #expect(strings.fallbackChain(for: "FR-ch") == ["fr", "en"])
        #expect(strings.fallbackChain(for: "pl") == ["pl", "en"])
        #expect(strings.fallbackChain(for: "de-AT") == ["en"])
        #expect(strings.fallbackChain(for: nil) == ["en"])
        #expect(LanguageTag.truncations("zh-Hant-TW") == ["zh-Hant-TW", "zh-Hant", "zh"])
        #expect(LanguageTag.truncations("de-CH-x-phonebk") == ["de-CH-x-phonebk", "de-CH", "de"])

        // A Swiss French client reads French; a German one the default, English.
        let settings = try fixtureScreen("settings")
        var state = try fixtureCatalogue.initialState
        state.client.locale = "fr-CH"
        #expect(render(settings, state).title == "Réglages")
        state.client.locale = "de-AT"
        #expect(render(settings, state).title == "Settings")
    }

    @Test func acceptLanguageChoosesAmongTheCataloguesLocales() throws {
        let strings = try #require(try fixtureCatalogue.strings)
        for (header, expected) in [
            ("fr-CH, fr;q=0.9, en;q=0.8", "fr"),
            ("de, pl;q=0.5, fr;q=0.4", "pl"),
            ("fr;q=0.5, pl;q=0.8", "pl"),
            ("pl;q=0, fr", "fr"),
            ("en-GB", "en"),
            ("PL-pl", "pl"),
            ("*", "en"),
            ("de, *;q=0.1", "en"),
            ("en;q=0, *", "fr"),
            ("de-CH, fr-CA;q=0.5", "fr"),
        ] as [(String, String?)] {
            #expect(strings.negotiate(acceptLanguage: header) == expected, "\(header)")
        }
        for header in ["", "de", "de-CH, ja;q=0.9", "fr;q=0", "fr;q=2", "not a tag!!"] {
            #expect(strings.negotiate(acceptLanguage: header) == nil, "\(header)")
        }
        // A range matches a table of its language with a region when nothing closer is there.
        let brazilian = try Self.catalogue(tables: ["en.json": #"{"t": "Title", "r": "Row"}"#, "pt-BR.json": #"{"t": "Título"}"#])
        #expect(brazilian.strings?.negotiate(acceptLanguage: "pt, en;q=0.5") == "pt-BR")
        #expect(brazilian.strings?.negotiate(acceptLanguage: "pt-PT, en;q=0.5") == "pt-BR")
        #expect(brazilian.strings?.negotiate(acceptLanguage: "pt-PT, pt-BR;q=0") == nil)
    }

    /// A plural message should have the forms its language uses: one it lacks shows the
    /// `other` text, one the language never uses is never shown. Both are warnings; a table
    /// named after a language ICU does not know is an error.
    @Test func pluralFormsAreCheckedAgainstTheLanguage() throws {
        let catalogue = try Self.catalogue(
            tables: [
                "en.json": #"{"t": "Title", "r": {"one": "{count} row", "few": "{count} rows", "other": "{count} rows"}}"#,
                "pl.json": #"{"t": "Tytuł", "r": {"one": "{count} wiersz", "other": "{count} wierszy"}}"#,
            ],
            screen: #"{"id": "a", "title": "{{@t}}", "sections": [{"id": "s", "rows": [{"id": "r", "kind": "basic", "title": "{{@r(count: 2)}}"}]}]}"#)
        #expect(
            catalogue.warnings.map(\.description) == [
                #"en.json:1:21: $["r"]: warning: the few form is never shown: en uses one, other (write exact numbers in the text of their form)"#,
                #"pl.json:1:21: $["r"]: warning: no few, many form: pl uses one, few, many, other, and numbers in the missing forms get the other text"#,
            ])
        let unknown = #expect(throws: DefinitionErrors.self) {
            try Self.catalogue(tables: ["en.json": #"{"t": "Title", "r": "Row"}"#, "fe.json": #"{"t": "T"}"#])
        }
        #expect(
            unknown?.problems.map(\.description) == [
                #"fe.json:1:1: $: the plural and number rules of fe are not available: ICU has no data for the language "fe"; name a string table after a locale, such as fr.json or pt-BR.json"#
            ])
    }

    /// A string table that is not JSON is placed where the parser stopped, as a screen's is.
    @Test func aStringTableThatIsNotJSONIsPlacedWhereItBreaks() {
        let broken = #expect(throws: DefinitionErrors.self) {
            try Self.catalogue(tables: ["en.json": "{\"t\": \"Title\",\n  \"r\": "])
        }
        #expect(broken?.problems.map(\.description) == ["en.json:2:8: $: not valid JSON: the document ends too early (truncated JSON?) at line 2, column 8"])
    }

    /// A brace that encloses no name is text, however many there are: a message of 200,000
    /// braces loads (in one pass over it: the limit only catches a loader gone quadratic).
    @Test(.timeLimit(.minutes(1))) func bracesThatEncloseNoNameAreText() throws {
        let braces = String(repeating: "{", count: 200_000)
        let catalogue = try Self.catalogue(tables: ["en.json": #"{"t": "\#(braces)", "r": "{x y} {} {1a} {{"}"#])
        let strings = try #require(catalogue.strings)
        #expect(strings.text("t", locale: "en", arguments: [:]) == braces)
        #expect(strings.text("r", locale: "en", arguments: [:]) == "{x y} {} {1a} {{")
    }

    /// Switching the language is one change set of updates: applied to the old copy, it gives
    /// the new screen, with the same rows in the same places.
    @Test(arguments: ["settings", "people", "users", "protocol-settings", "about-details"])
    func aLanguageSwitchIsOneChangeSetOfUpdates(screen id: String) throws {
        let definition = try fixtureScreen(id)
        var english = try fixtureCatalogue.initialState
        var copy = render(definition, english)
        for locale in ["fr", "pl", "fr-CH", "en"] {
            var next = english
            next.client.locale = locale
            next.revision += 1
            let screen = render(definition, next)
            #expect(render(definition, next, reusing: copy, renderedAt: english) == screen)
            let changes = diff(old: copy, new: screen)
            #expect(changes.rows.inserted.isEmpty && changes.rows.deleted.isEmpty && changes.rows.moved.isEmpty, "\(id) \(locale)")
            #expect(changes.sections.inserted.isEmpty && changes.sections.deleted.isEmpty, "\(id) \(locale)")
            #expect(try changes.applyChecked(to: copy).sections == screen.sections, "\(id) \(locale)")
            (english, copy) = (next, screen)
        }
    }

    /// A screen that names no message renders alike in every language: no change set.
    @Test func aScreenWithoutMessagesDoesNotChangeWithTheLanguage() throws {
        let catalogue = try Self.catalogue(
            tables: ["en.json": #"{"t": "Title"}"#, "fr.json": #"{"t": "Titre"}"#],
            screen: #"{"id": "plain", "title": "Plain", "sections": [{"id": "s", "rows": [{"id": "r", "kind": "basic", "title": "Row"}]}]}"#)
        let definition = try #require(catalogue.screen(id: "plain"))
        var state = catalogue.initialState
        let before = render(definition, state)
        state.client.locale = "fr"
        #expect(diff(old: before, new: render(definition, state)).isEmpty)
    }

    /// A message that a locale's tables lack is a warning (its clients read the default
    /// locale's text); one the default table lacks is an error (in InvalidDefinitionTests).
    @Test func aMissingTranslationIsAWarningAndFallsBack() throws {
        let catalogue = try Self.catalogue(tables: [
            "en.json": #"{"t": "Title", "r": "Row"}"#, "fr.json": #"{"t": "Titre"}"#, "fr-CA.json": #"{"r": "Rangée"}"#,
        ])
        #expect(
            catalogue.warnings.map(\.description) == [
                #"fr.json:1:1: $: warning: no message "r", which a.json names at $.sections[0].rows[0].title; clients in fr get the en text"#
            ])
        #expect(catalogue.warnings.allSatisfy { $0.severity == .warning && $0.kind == .missingTranslation })
        let definition = try #require(catalogue.screen(id: "a"))
        var state = catalogue.initialState
        for (locale, texts) in [("fr", ["Titre", "Row"]), ("fr-CA", ["Titre", "Rangée"]), ("en", ["Title", "Row"])] {
            state.client.locale = locale
            let screen = render(definition, state)
            #expect(
                [screen.title, screen.sections.first?.rows.first.map { row in if case .basic(let title) = row.content { title } else { "" } } ?? ""] == texts)
        }
    }

    /// Texts without placeholders come from a table written once per locale: each reads as
    /// the message the locale's fallback chain finds, in any locale a client may name.
    @Test func aLabelReadsAsTheMessageItsLocaleFinds() throws {
        let tables = try Self.catalogue(tables: [
            "en.json": #"{"t": "Title", "r": "Row"}"#, "fr.json": #"{"t": "Titre {"}"#, "fr-CA.json": #"{"r": "Rangée"}"#,
        ])
        for strings in [try #require(tables.strings), try #require(try fixtureCatalogue.strings)] {
            let keys = Set(strings.tables.values.flatMap(\.keys)).union(["missing"])
            for locale in [nil, "en", "fr", "fr-CA", "fr-CH", "FR", "pl", "de"] as [String?] {
                for key in keys {
                    let expected: String
                    switch strings.message(key, for: locale)?.message {
                    case .text(let text)? where text.argumentNames.isEmpty: expected = text.source
                    case nil: expected = key
                    default: continue
                    }
                    #expect(strings.text(key, locale: locale, arguments: [:]) == expected, "\(key) in \(locale ?? "the default locale")")
                }
            }
        }
    }

    static func catalogue(
        tables: [String: String],
        screen: String = #"{"id": "a", "title": "{{@t}}", "sections": [{"id": "s", "rows": [{"id": "r", "kind": "basic", "title": "{{@r}}"}]}]}"#
    ) throws -> Catalogue {
        try Catalogue.load(
            [DefinitionFile(name: "a.json", bytes: Array(screen.utf8))],
            strings: StringSources(
                files: tables.map { DefinitionFile(name: $0.key, bytes: Array($0.value.utf8)) }, defaultLocale: "en", rules: ICULocaleRules()))
    }
}
