import HTTPTypes
import TabulaHTTP

/// `/client/tabula.js` and `/client/tabula.css`: the embeddable web client and its
/// stylesheet (see docs/clients.md), served always, not only with `--preview`, so
/// that an app's pages can `import` the client from the service they talk to.
///
/// They change only with the binary, so they are cached for a day and revalidated by
/// `ETag` (`If-None-Match` → 304). CORS is the service's: ``AccessPolicy`` adds
/// `Access-Control-Allow-Origin` for the origins of `--cors-origins` to every answer, which
/// a cross-origin `import` (always a CORS request) needs.
enum ClientRoutes {
    /// A day: the least an app's pages may count on between two revalidations.
    static let cacheControl = "public, max-age=86400"

    static let script = Asset(EmbeddedClient.js, type: "text/javascript; charset=utf-8")
    static let stylesheet = Asset(EmbeddedClient.css, type: "text/css; charset=utf-8")

    /// Both files' tags together: changes whenever either file does. The preview page names
    /// the client's URLs with it (`?v=`), so a new binary's page never runs a day-old client.
    static let version: String = {
        let tags = script.tag + stylesheet.tag
        return String(ETag.of(Array(tags.utf8)).filter { $0 != "\"" })
    }()

    static func add(to routes: inout RouteTable) {
        routes.add(.get, "/client/tabula.js") { context in .now(script.response(to: context.request)) }
        routes.add(.get, "/client/tabula.css") { context in .now(stylesheet.response(to: context.request)) }
    }

    /// An embedded file with its entity tag, computed once.
    struct Asset: Sendable {
        let body: [UInt8]
        let type: String
        let tag: String

        init(_ text: String, type: String) {
            body = Array(text.utf8)
            self.type = type
            tag = ETag.of(body)
        }

        /// 200 with the file, or 304 when `If-None-Match` names its tag.
        func response(to request: Request) -> Response {
            var fields = HTTPFields()
            fields[.eTag] = tag
            fields[.cacheControl] = ClientRoutes.cacheControl
            // A shared cache must not hand one origin's answer (with or without CORS
            // headers) to another.
            fields[.vary] = "Origin"
            if let tags = request.headers.value("If-None-Match"), ETag.matches(tags, tag) {
                return Response(status: .notModified, headerFields: fields)
            }
            fields[.contentType] = type
            if let name = HTTPField.Name("X-Content-Type-Options") { fields[name] = "nosniff" }
            return Response(status: .ok, headerFields: fields, body: body)
        }
    }
}
