import ArgumentParser
import TabulaCore

/// `--open-url-schemes`, for every command that loads definitions: the URL schemes an
/// `open` action may give a client besides http, https, mailto and tel.
struct URLSchemeOptions: ParsableArguments {
    @Option(
        name: .customLong("open-url-schemes"), parsing: .unconditional,
        help:
            "URL schemes an open action may give a client besides http, https, mailto and tel, comma-separated, such as myapp (env TABULA_OPEN_URL_SCHEMES)"
    )
    var openURLSchemes: String?

    func resolved() throws -> URLSchemes {
        let text = openURLSchemes ?? EnvironmentSetting.value("TABULA_OPEN_URL_SCHEMES") ?? ""
        do throws(URLSchemeError) {
            return try URLSchemes(adding: text.split(separator: ",").map { String($0).trimmingCharacters(in: " ") }.filter { !$0.isEmpty })
        } catch {
            throw ValidationError("--open-url-schemes: \(error)")
        }
    }
}

extension String {
    /// The text without `characters` at either end.
    fileprivate func trimmingCharacters(in characters: String) -> String {
        String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}
