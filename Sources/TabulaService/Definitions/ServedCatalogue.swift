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
    private let screenList: PreparedResponse?
    /// The list's body, for an answer made per request when libmicrohttpd could not prepare one.
    private let screenListBody: [UInt8]
    /// The `GET` answers each server thread gave, checked before a request is routed.
    let responses: ResponseCache

    /// `limitCounts` counts the answers the threads' caches drop to keep `threadCacheBounds`.
    init(_ catalogue: Catalogue, version: Int, threadCacheBounds: CacheBounds, limitCounts: LimitCounts) {
        self.catalogue = catalogue
        self.version = version
        var defaults: [String: RenderedScreen] = [:]
        for definition in catalogue.screens where definition.item == nil {
            defaults[definition.id] = ScreenCache.render(definition, catalogue.initialState)
        }
        self.defaults = defaults
        responses = ResponseCache(threadCacheBounds, limitCounts: limitCounts)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("screens")
        Self.writeScreens(catalogue, to: &writer, withFiles: false)
        writer.endObject()
        screenListBody = writer.bytes
        screenList = PreparedResponse(status: .ok, headerFields: JSONResponse.headers(), body: screenListBody)
    }

    /// `GET /v1/screens`'s answer: the prepared one, or (should libmicrohttpd not have
    /// allocated it) the same built anew.
    var screenListResponse: Response {
        if let screenList { return Response(screenList) }
        return Response(status: .ok, headerFields: JSONResponse.headers(), body: screenListBody)
    }

    /// The screens as `GET /v1/screens` lists them, `[{"id", "title"}]` (titles at the
    /// default state, in the default locale), with each one's `file` too for the preview page.
    /// Item screens are left out of `GET /v1/screens`: they open through navigation, with an
    /// item; the preview page gets them with their list (`itemList`), to know them.
    func writeScreens(to writer: inout JSONWriter, withFiles: Bool) {
        Self.writeScreens(catalogue, to: &writer, withFiles: withFiles)
    }

    private static func writeScreens(_ catalogue: Catalogue, to writer: inout JSONWriter, withFiles: Bool) {
        writer.array(catalogue.screens.filter { withFiles || $0.item == nil }) { writer, screen in
            writer.beginObject()
            if withFiles { writer.key("file"); writer.string(screen.file) }
            writer.key("id"); writer.string(screen.id)
            if withFiles, let list = screen.item { writer.key("itemList"); writer.string(list) }
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

    /// The screen at the catalogue's default state (revision 0); on an item screen, showing
    /// `item` (rendered on each ask: they are few, and item screens open from a session).
    func defaultScreen(_ definition: ScreenDefinition, item: String? = nil) -> RenderedScreen {
        if item == nil, let known = defaults[definition.id] { return known }
        return ScreenCache.render(definition, catalogue.initialState, item: item)
    }
}
