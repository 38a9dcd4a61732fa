import HTTPTypes
import TabulaCore
import TabulaHTTP

/// `tabula serve --preview`: the page authors see their screens on (`/preview`, the list,
/// and `/preview/{screen}`, one screen in a session the page makes), its two assets, and
/// `/preview/api/catalogue`, the served catalogue's version, screens and problems, which the
/// page polls. The page itself talks to the ordinary API, as any client does, and draws the
/// screen with the web client of ``ClientRoutes`` (one renderer, not two).
enum PreviewRoutes {
    static func add(to routes: inout RouteTable, catalogue: @escaping @Sendable () -> (ServedCatalogue, problems: [CatalogueProblem])) {
        // no-store: a page kept in the browser's back-forward cache would keep its stream open.
        // The page names the client's files with their version (`?v=`): they are cached for
        // a day, and a page of a new binary must not run an older client.
        let html = EmbeddedPreview.html.replacing("CLIENT_VERSION", with: ClientRoutes.version)
        let page = asset(html, type: "text/html; charset=utf-8", cacheControl: "no-store")
        routes.add(.get, "/preview") { _ in .now(page) }
        routes.add(.get, "/preview/{screen}") { _ in .now(page) }
        let files = [
            "preview.css": asset(EmbeddedPreview.css, type: "text/css; charset=utf-8"),
            "preview.js": asset(EmbeddedPreview.js, type: "text/javascript; charset=utf-8"),
        ]
        routes.add(.get, "/preview/assets/{file}") { context throws(Problem) in
            guard let file = files[context.parameters["file"] ?? ""] else { throw Problem.notFound(path: context.request.rawPath) }
            return .now(file)
        }
        routes.add(.get, "/preview/api/catalogue") { _ in
            let (served, problems) = catalogue()
            return .now(JSONResponse.make(.ok, catalogueBody(served, problems)))
        }
    }

    /// `{"defaultLocale", "locales", "problems": [...], "screens": [{"id", "title", "file"}],
    /// "version", "warnings": [...]}`: the problems of the last reload, when it was refused,
    /// and the warnings of the catalogue served (a message a locale lacks).
    static func catalogueBody(_ served: ServedCatalogue, _ problems: [CatalogueProblem]) -> [UInt8] {
        let strings = served.catalogue.strings
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("defaultLocale")
        if let strings { writer.string(strings.defaultLocale) } else { writer.null() }
        writer.key("locales")
        writer.array(strings?.locales ?? []) { writer, locale in writer.string(locale) }
        writer.key("problems")
        writer.array(problems) { writer, problem in problem.write(to: &writer) }
        writer.key("screens")
        served.writeScreens(to: &writer, withFiles: true)
        writer.key("version"); writer.int(served.version)
        writer.key("warnings")
        writer.array(served.catalogue.warnings) { writer, warning in CatalogueProblem.definition(warning).write(to: &writer) }
        writer.endObject()
        return writer.bytes
    }

    /// An embedded file's answer. `no-cache` by default: a new binary serves new files at the
    /// same URLs.
    private static func asset(_ text: String, type: String, cacheControl: String = "no-cache") -> Response {
        var fields = HTTPFields()
        fields[.contentType] = type
        fields[.cacheControl] = cacheControl
        if let name = HTTPField.Name("X-Content-Type-Options") { fields[name] = "nosniff" }
        // The page loads nothing from elsewhere (the web client is this origin's
        // `/client/tabula.js`) and runs no inline script.
        if let name = HTTPField.Name("Content-Security-Policy") {
            fields[name] = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'"
        }
        return Response(status: .ok, headerFields: fields, body: Array(text.utf8))
    }
}
