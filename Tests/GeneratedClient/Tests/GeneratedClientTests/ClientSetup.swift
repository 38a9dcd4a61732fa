import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client a Swift app generates from Tabula's `/openapi.json`, set up as `docs/clients.md`
/// shows: the configuration and the two middlewares below are what the generated code needs
/// beyond the document.
func makeTabulaClient(baseURL: URL, backendKey: String? = nil) -> Client {
    Client(
        serverURL: baseURL,
        // Tabula writes times with milliseconds (`2026-11-27T10:00:00.000Z`); the runtime's
        // default transcoder reads whole seconds only.
        configuration: Configuration(dateTranscoder: .iso8601WithFractionalSeconds),
        transport: URLSessionTransport(),
        middlewares: [HeaderParametersMiddleware(), BearerMiddleware(key: backendKey)]
    )
}

/// Sends header parameters as written. The runtime percent-encodes a header parameter as if
/// it were part of a URL (swift-openapi-generator issues 529, 827 and 857): `If-Match: "3"`
/// would leave as `%223%22`, which Tabula refuses (400 `invalid-header`), and
/// `Accept-Language: fr-CH, fr;q=0.9` as `fr-CH%2C%20fr%3Bq%3D0.9`. The middleware undoes
/// that for the header parameters of Tabula's document.
struct HeaderParametersMiddleware: ClientMiddleware {
    static let names: [HTTPField.Name] = [
        .ifMatch, .ifNoneMatch, .acceptLanguage, HTTPField.Name("Idempotency-Key")!, HTTPField.Name("Last-Event-ID")!,
        HTTPField.Name("X-Session")!,
    ]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for name in Self.names {
            if let value = request.headerFields[name], let decoded = value.removingPercentEncoding {
                request.headerFields[name] = decoded
            }
        }
        return try await next(request, body, baseURL)
    }
}

/// Adds `Authorization: Bearer KEY`: the generated client leaves the document's security
/// schemes (the API key, the backend key) to the app.
struct BearerMiddleware: ClientMiddleware {
    let key: String?

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let key {
            request.headerFields[.authorization] = "Bearer \(key)"
        }
        return try await next(request, body, baseURL)
    }
}
