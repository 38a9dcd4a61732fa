import ArgumentParser
import TabulaCore
import TabulaService

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check every screen definition in a directory.",
        discussion: """
            Loads every *.json file in DIR as one catalogue, with the string tables of the \
            strings directory beside it, and prints each problem on its own line as \
            FILE:LINE:COLUMN: JSON-PATH[: column N]: what to fix (column N is the column \
            within an expression). Exits 1 if there is any problem; warnings (a message a \
            locale lacks) are printed and do not fail.
            """
    )

    @Argument(help: "The directory of screen definitions (env TABULA_SCREENS, default \(ServeCommand.Defaults.screens)).")
    var directory: String?

    @Option(parsing: .unconditional, help: "The directory of string tables (env TABULA_STRINGS, default: the strings directory beside DIR, if any).")
    var strings: String?

    @Option(
        parsing: .unconditional, help: "The locale whose string table has every message (env TABULA_DEFAULT_LOCALE, default \(StringSources.defaultLocale)).")
    var defaultLocale: String?

    @OptionGroup var urlSchemes: URLSchemeOptions

    func run() throws {
        let settings = try CatalogueSettings(screens: directory, strings: strings, defaultLocale: defaultLocale)
        switch settings.directory(urlSchemes: try urlSchemes.resolved()).load() {
        case .success(let catalogue):
            for warning in catalogue.warnings { printToStandardError(warning.description) }
            let warnings = catalogue.warnings.isEmpty ? "" : " (\(catalogue.warnings.count) warning\(catalogue.warnings.count == 1 ? "" : "s"))"
            print("\(catalogue.screens.count) screens valid\(warnings): \(catalogue.screens.map(\.id).joined(separator: ", "))")
        case .failure(let problems):
            printToStandardError(problems.description)
            printToStandardError("\(problems.problems.count) problem\(problems.problems.count == 1 ? "" : "s") in \(settings.screens)")
            throw ExitCode(1)
        }
    }
}
