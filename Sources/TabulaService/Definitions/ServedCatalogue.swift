import TabulaCore
import TabulaHTTP

/// One version of the catalogue as the API serves it, with what the API derives from it
/// once: the screens at the default state, each screen's `GET` target, the list of screens,
/// and the screens each server thread remembers (by position in this catalogue). A reload
/// makes a new one and replaces this one whole (``CurrentCatalogue``), so a request sees
/// one version throughout.
final class ServedCatalogue: Sendable {
    let catalogue: Catalogue
    /// Counts the catalogues this process served: 1 for the one it started with.
    let version: Int
    /// Each screen at the catalogue's default state (revision 0).
    private let defaults: [String: RenderedScreen]
    /// Each screen's `GET /v1/screens/{id}` target, for answering unparsed GETs by bytes.
    let screenTargets: [ScreenTarget]
    /// `GET /v1/screens`, built once.
    let screenList: PreparedResponse?
    /// The session screens each server thread answered, checked first by unparsed GETs.
    let threadScreens: ThreadScreenCache

    init(_ catalogue: Catalogue, version: Int, threadCacheEntries: Int) {
        self.catalogue = catalogue
        self.version = version
        var defaults: [String: RenderedScreen] = [:]
        for definition in catalogue.screens {
            defaults[definition.id] = ScreenCache.render(definition, catalogue.initialState)
        }
        self.defaults = defaults
        screenTargets = catalogue.screens.map(ScreenTarget.init)
        threadScreens = ThreadScreenCache(maxEntriesPerThread: threadCacheEntries)
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
