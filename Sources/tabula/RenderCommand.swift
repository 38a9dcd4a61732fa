import ArgumentParser
import TabulaCore
import TabulaService

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Print a screen in the wire model at the default or a given state.",
        discussion: """
            The state file is a JSON object of state keys and values, for example \
            {"wifi": false}; keys it leaves out keep their defaults. An item screen shows \
            the item --item names, or its list's first item.
            """
    )

    @Argument(help: "The id of the screen to render.")
    var screen: String

    @Option(parsing: .unconditional, help: "The directory of screen definitions (env TABULA_SCREENS, default \(ServeCommand.Defaults.screens)).")
    var screens: String?

    @Option(parsing: .unconditional, help: "The directory of string tables (env TABULA_STRINGS, default: the strings directory beside the screens, if any).")
    var strings: String?

    @Option(
        parsing: .unconditional, help: "The locale whose string table has every message (env TABULA_DEFAULT_LOCALE, default \(StringSources.defaultLocale)).")
    var defaultLocale: String?

    @Option(parsing: .unconditional, help: "The client's language, a BCP 47 tag such as fr or pl (default: the default locale).")
    var locale: String?

    @Option(parsing: .unconditional, help: "A JSON file with state values to render at.")
    var state: String?

    @Option(parsing: .unconditional, help: "The item an item screen shows (default: its list's first item).")
    var item: String?

    @Flag(help: "Indent the output for reading.")
    var pretty = false

    @OptionGroup var urlSchemes: URLSchemeOptions

    func run() throws {
        let settings = try CatalogueSettings(screens: screens, strings: strings, defaultLocale: defaultLocale)
        let catalogue = try loadCatalogue(settings.directory(urlSchemes: try urlSchemes.resolved()))
        guard let definition = catalogue.screen(id: screen) else {
            throw CommandFailure("no screen \"\(screen)\" in \(settings.screens); known screens: \(catalogue.screens.map(\.id).joined(separator: ", "))")
        }
        var sessionState = catalogue.initialState
        if let state {
            let bytes = try readFile(state)
            do {
                sessionState = try catalogue.schema.state(from: try JSONParser().parse(bytes))
            } catch let error as JSONParseError {
                throw CommandFailure("\(state): not valid JSON: \(error)")
            } catch {
                throw CommandFailure("\(state): \(error)")
            }
        }
        if let locale {
            guard let tag = LanguageTag.canonical(locale) else { throw CommandFailure("\(locale) is not a BCP 47 language tag such as fr or pt-BR") }
            sessionState.client.locale = tag
        }
        printJSON(render(definition, sessionState, item: try shownItem(definition, sessionState)).jsonBytes, pretty: pretty)
    }

    /// The item an item screen shows: `--item`'s, which its list must hold, or the list's
    /// first, as the golden files show it.
    private func shownItem(_ definition: ScreenDefinition, _ state: SessionState) throws -> String? {
        guard let list = definition.item else {
            guard item == nil else { throw CommandFailure("--item names the item an item screen shows, and \"\(screen)\" is not one") }
            return nil
        }
        let ids = definition.conformed(state).records(list).map(\.id)
        guard let item else {
            guard let first = ids.first else {
                throw CommandFailure("\"\(screen)\" shows an item of \"\(list)\", which is empty at this state: give --state a list with an item")
            }
            return first
        }
        guard ids.contains(item) else {
            throw CommandFailure(
                "\"\(list)\" holds no item \"\(item)\" at this state; its items: \(ids.prefix(20).joined(separator: ", "))\(ids.count > 20 ? ", …" : "")")
        }
        return item
    }
}

/// Loads a catalogue, turning definition problems into one failure that lists them all;
/// each warning goes to `warn` (standard error by default).
func loadCatalogue(_ directory: DefinitionDirectory, warn: (String) -> Void = { printToStandardError($0) }) throws -> Catalogue {
    switch directory.load() {
    case .success(let catalogue):
        for warning in catalogue.warnings { warn(warning.description) }
        return catalogue
    case .failure(let problems): throw CommandFailure("the screen definitions in \(directory.path) have problems:\n\(problems)")
    }
}
