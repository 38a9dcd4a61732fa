import ArgumentParser
import TabulaCore
import TabulaService

/// Where the screen definitions and their string tables are, and which locale's table has
/// every message: each an option's value, else its environment variable, else the default.
/// `serve`, `validate` and `render` read them alike, so that `validate` checks the catalogue
/// `serve` loads in the same environment (a container's `TABULA_SCREENS`, say).
struct CatalogueSettings {
    let screens: String
    let strings: String?
    let defaultLocale: String

    init(screens: String?, strings: String?, defaultLocale: String?) throws {
        self.screens = try EnvironmentSetting.resolve(screens, "TABULA_SCREENS", default: ServeCommand.Defaults.screens)
        self.strings = strings ?? EnvironmentSetting.value("TABULA_STRINGS")
        let localeName = try EnvironmentSetting.resolve(defaultLocale, "TABULA_DEFAULT_LOCALE", default: StringSources.defaultLocale)
        guard let canonical = LanguageTag.canonical(localeName) else {
            throw ValidationError("--default-locale (or TABULA_DEFAULT_LOCALE) \"\(localeName)\" is not a BCP 47 language tag such as en or pt-BR")
        }
        self.defaultLocale = canonical
    }

    func directory(urlSchemes: URLSchemes) -> DefinitionDirectory {
        DefinitionDirectory(screens, strings: strings, defaultLocale: defaultLocale, urlSchemes: urlSchemes)
    }
}
