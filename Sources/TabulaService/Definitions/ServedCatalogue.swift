import TabulaCore
import TabulaHTTP

/// One version of the catalogue as the API serves it, with what the API derives from it
/// once: the screens at the default state, the list of screens, and the answers each server
/// thread remembers for repeated `GET`s. A reload
/// makes a new one and replaces this one whole (``CurrentCatalogue``), so a request sees
/// one version throughout.
final class ServedCatalogue: Sendable {
    let catalogue: Catalogue
    /// Counts the catalogues this process served: 1 for the one it started with.
    let version: Int
    /// Each screen at the catalogue's default state (revision 0).
    private let defaults: [String: RenderedScreen]
    /// `GET /v1/screens`, built once.
    let screenList: PreparedResponse?
    /// The `GET` answers each server thread gave, checked before a request is routed.
    let responses: ResponseCache

    init(_ catalogue: Catalogue, version: Int, threadCacheEntries: Int) {
        self.catalogue = catalogue
        self.version = version
        var defaults: [String: RenderedScreen] = [:]
        for definition in catalogue.screens {
            defaults[definition.id] = ScreenCache.render(definition, catalogue.initialState)
        }
        self.defaults = defaults
        responses = ResponseCache(maxEntriesPerThread: threadCacheEntries)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("screens")
        Self.writeScreens(catalogue, to: &writer, withFiles: false)
        writer.endObject()
        screenList = PreparedResponse(status: .ok, headerFields: JSONResponse.headers(), body: writer.bytes)
    }

    /// The screens as `GET /v1/screens` lists them, `[{"id", "title"}]` (titles at the
    /// default state, in the default locale), with each one's `file` too for the preview page.
    func writeScreens(to writer: inout JSONWriter, withFiles: Bool) {
        Self.writeScreens(catalogue, to: &writer, withFiles: withFiles)
    }

    private static func writeScreens(_ catalogue: Catalogue, to writer: inout JSONWriter, withFiles: Bool) {
        writer.array(catalogue.screens) { writer, screen in
            writer.beginObject()
            if withFiles { writer.key("file"); writer.string(screen.file) }
            writer.key("id"); writer.string(screen.id)
            writer.key("title"); writer.string(screen.title.evaluate(EvaluationContext(state: catalogue.initialState, strings: screen.strings)))
            writer.endObject()
        }
    }

    /// The screen definition with this id; 404 `unknown-screen` when there is none.
    func definition(_ id: String) throws(Problem) -> ScreenDefinition {
        guard let definition = catalogue.screen(id: id) else {
            throw Problem.unknownScreen(id, known: catalogue.screens.map(\.id))
        }
        return definition
    }

    /// The screen at the catalogue's default state (revision 0).
    func defaultScreen(_ definition: ScreenDefinition) -> RenderedScreen {
        defaults[definition.id] ?? ScreenCache.render(definition, catalogue.initialState)
    }
}
