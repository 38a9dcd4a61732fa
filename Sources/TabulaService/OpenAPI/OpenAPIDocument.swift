/// The OpenAPI 3.1 description of every route, served at `/openapi.json`: the repository's
/// `openapi.json`, embedded at build time by the EmbedFile plugin. Tests check that it is
/// valid, that it names every route the router has, and schemathesis checks answers
/// against it.
enum OpenAPIDocument {
    static let bytes: [UInt8] = Array(EmbeddedOpenAPI.text.utf8)
}
