import TabulaCore
import TabulaHTTP
import TabulaService
import TabulaTestSupport
import Testing

/// API key, CORS and state limits, on a live server.
@Suite struct SecurityTests {
    @Test func everyV1RouteNeedsTheAPIKeyWhenOneIsSet() throws {
        let api = try APITestServer { $0.apiKey = APIKey("s3cret-api-key-0123") }
        for (method, path) in [("GET", "/v1/screens"), ("POST", "/v1/sessions"), ("GET", "/v1/screens/settings"), ("GET", "/v1/nothing")] {
            let missing = try api.send(method, path)
            #expect(missing.status == 401 && missing.problemSlug == "unauthorized", "\(method) \(path)")
            #expect(missing.header("WWW-Authenticate") == #"Bearer realm="tabula""#)
            let wrong = try api.send(method, path, headers: ["Authorization: Bearer s3cret-api-key-0124"])
            #expect(wrong.status == 401 && wrong.header("WWW-Authenticate")?.contains("invalid_token") == true)
            #expect(try api.send(method, path, headers: ["Authorization: Bearer s3cret-api-key-0123-longer"]).status == 401)
            #expect(try api.send(method, path, headers: ["Authorization: Basic s3cret-api-key-0123"]).status == 401)
        }
        #expect(try api.send("GET", "/v1/screens", headers: ["Authorization: Bearer s3cret-api-key-0123"]).status == 200)
        #expect(try api.send("GET", "/v1/screens", headers: ["Authorization: bearer s3cret-api-key-0123"]).status == 200)
        let created = try api.send("POST", "/v1/sessions", headers: ["Authorization: Bearer s3cret-api-key-0123"])
        #expect(created.status == 201)
        // Operations stay open for probes and scrapers.
        #expect(try api.send("GET", "/healthz").status == 200)
        #expect(try api.send("GET", "/openapi.json").status == 200)
        let unauthorized = #"tabula_http_rejected_requests_total{reason="unauthorized"} 16"#
        #expect(try api.metrics(showing: unauthorized).contains(unauthorized))
    }

    /// The router decodes a path's escapes before it matches: the key is asked of the path
    /// it matches, so an escaped letter does not open `/v1` (`/v%31/sessions` made sessions
    /// without the key) nor the preview's catalogue.
    @Test func anEscapedPathNeedsTheKeyAsMuch() throws {
        let key = "s3cret-api-key-0123"
        let api = try APITestServer {
            $0.apiKey = APIKey(key)
            $0.preview = true
            $0.keyRefusalPauseMilliseconds = 0
        }
        for (method, path) in [
            ("GET", "/v%31/screens"), ("GET", "/%761/screens"), ("POST", "/%76%31/sessions"), ("GET", "/v1/%73creens/settings"),
            ("GET", "/preview/%61pi/catalogue"), ("GET", "/%70review/api/catalogue"), ("GET", "/v%3"),
        ] {
            let missing = try api.send(method, path)
            #expect(missing.status == 401 && missing.problemSlug == "unauthorized", "\(method) \(path): \(missing.status)")
        }
        let escaped = try api.send("GET", "/v%31/screens", headers: ["Authorization: Bearer \(key)"])
        #expect(escaped.status == 200, "the key still opens an escaped path: \(escaped.status)")
        #expect(try api.send("GET", "/preview/%61pi/catalogue", headers: ["Authorization: Bearer \(key)"]).status == 200)
        // The page's own files stay open, escaped or not.
        #expect(try api.send("GET", "/%70review/settings").status == 200)
    }

    @Test func anAPIKeyMustBeSendableInAHeaderAndLongEnough() {
        #expect(APIKey("") == nil)
        #expect(APIKey("two words in a key") == nil)
        #expect(APIKey("tab\there-in-a-key") == nil)
        #expect(APIKey("ok-key_1.2~-sixteen") != nil)
        #expect(APIKey(String(repeating: "k", count: 15)) == nil)
        #expect(APIKey(String(repeating: "k", count: 16)) != nil)
        #expect(throws: APIKey.Unusable.tooShort(length: 2)) { try APIKey(validating: "ab") }
    }

    /// The lengths used to be compared modulo 256: the key followed by 256 or 512 more bytes
    /// passed, for both keys and for a stream's `?key=`.
    @Test func aKeyWithMoreBytesAfterItIsRefused() throws {
        let apiKey = "s3cret-api-key-0123"
        let backendKey = "backend-key-0123456"
        let api = try APITestServer {
            $0.apiKey = APIKey(apiKey)
            $0.backendKey = APIKey(backendKey)
            $0.keyRefusalPauseMilliseconds = 0
        }
        for extra in [1, 255, 256, 512, 1024] {
            let padding = String(repeating: "x", count: extra)
            let screens = try api.send("GET", "/v1/screens", headers: ["Authorization: Bearer \(apiKey)\(padding)"])
            #expect(screens.status == 401, "API key + \(extra) bytes")
            let feed = try api.send("GET", "/v1/feed", headers: ["Authorization: Bearer \(backendKey)\(padding)"])
            #expect(feed.status == 401, "backend key + \(extra) bytes")
            let stream = try api.send("GET", "/v1/feed/stream?key=\(backendKey)\(padding)")
            #expect(stream.status == 401, "?key= + \(extra) bytes")
        }
        #expect(try api.send("GET", "/v1/feed", headers: ["Authorization: Bearer \(backendKey)"]).status == 200)
    }

    /// A refused key is answered after the pause; a request with the right key sent while
    /// refusals wait is answered before them.
    @Test func aRefusedKeyWaitsAndTheRightKeyDoesNot() throws {
        let key = "s3cret-api-key-0123"
        let api = try APITestServer {
            $0.apiKey = APIKey(key)
            $0.keyRefusalPauseMilliseconds = 1500
        }
        let started = ContinuousClock.now
        let refused = try api.send("GET", "/v1/screens", headers: ["Authorization: Bearer wrong-api-key-0123"])
        #expect(refused.status == 401 && refused.problemSlug == "unauthorized")
        #expect(ContinuousClock.now - started >= .milliseconds(1500))

        let waiting = try (0..<8).map { _ in
            let connection = try RawHTTPConnection(port: api.port)
            try connection.send(getRequest("/v1/screens", headers: ["Authorization: Bearer wrong-api-key-0123"]))
            return connection
        }
        let right = try api.send("GET", "/v1/screens", headers: ["Authorization: Bearer \(key)"])
        #expect(right.status == 200)
        // The refusals sent before it are still waiting.
        for connection in waiting {
            #expect(!connection.hasBytesWaiting())
        }
        for connection in waiting {
            #expect(try connection.readResponse().status == 401)
        }
    }

    @Test func corsIsOffByDefault() throws {
        let api = try APITestServer()
        let answer = try api.send("GET", "/v1/screens", headers: ["Origin: https://app.example.com"])
        #expect(answer.status == 200 && answer.header("Access-Control-Allow-Origin") == nil)
        let preflight = try api.send(
            "OPTIONS", "/v1/sessions",
            headers: [
                "Origin: https://app.example.com", "Access-Control-Request-Method: POST",
            ])
        #expect(preflight.status == 405 && preflight.header("Access-Control-Allow-Origin") == nil)
    }

    @Test func corsAnswersAllowedOriginsOnly() throws {
        let api = try APITestServer { $0.cors = try? CORSPolicy(origins: ["https://app.example.com"]) }
        let allowed = try api.send("GET", "/v1/screens", headers: ["Origin: https://APP.example.com"])
        #expect(allowed.status == 200)
        #expect(allowed.header("Access-Control-Allow-Origin") == "https://APP.example.com")
        #expect(allowed.header("Vary") == "Origin")
        let client = try api.send("GET", "/client/tabula.js", headers: ["Origin: https://app.example.com"])
        #expect(client.status == 200 && client.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(client.headers.filter { $0.name.lowercased() == "vary" }.map(\.value) == ["Origin"], "one Vary: Origin, not its own and CORS's")
        let preflight = try api.send(
            "OPTIONS", "/v1/screens/settings/switch",
            headers: [
                "Origin: https://app.example.com", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: x-session, content-type",
            ])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Methods") == "GET, POST, PUT")
        #expect(preflight.header("Access-Control-Allow-Headers") == "Authorization, Content-Type, If-None-Match, Last-Event-ID, X-Session")
        let other = try api.send("GET", "/v1/screens", headers: ["Origin: https://evil.example"])
        #expect(other.status == 200 && other.header("Access-Control-Allow-Origin") == nil)
        let refused = try api.send("OPTIONS", "/v1/screens", headers: ["Origin: https://evil.example", "Access-Control-Request-Method: GET"])
        #expect(refused.status == 403 && refused.problemSlug == "cors-origin-not-allowed")
        // Problems carry the headers too, so that a browser can read them.
        let problem = try api.send("GET", "/v1/screens/nope", headers: ["Origin: https://app.example.com"])
        #expect(problem.status == 404 && problem.header("Access-Control-Allow-Origin") == "https://app.example.com")
    }

    @Test func corsAllowListEntriesAreChecked() {
        #expect(throws: ConfigurationError.self) { try CORSPolicy(origins: ["app.example.com"]) }
        #expect(throws: ConfigurationError.self) { try CORSPolicy(origins: ["https://app.example.com/path"]) }
        #expect(throws: ConfigurationError.self) { try CORSPolicy(origins: [" ", ""]) }
        #expect(throws: Never.self) { try CORSPolicy(origins: ["*"]) }
    }

    /// A `set` that doubles a string on every event: the limit stops it, and the state stays.
    @Test func stateCannotGrowPastItsLimit() throws {
        let catalogue = try Catalogue.load([
            DefinitionFile(
                name: "grow.json",
                bytes: Array(
                    #"""
                    {"id": "grow", "title": "Grow", "state": {"note": "abcdefgh"},
                     "sections": [{"id": "s", "rows": [{"id": "grow", "kind": "basic", "title": "{{note}}", "onSelect": {"set": {"note": "{{note}}{{note}}"}}}]}]}
                    """#.utf8))
        ])
        let api = try APITestServer(catalogue: catalogue) { $0.stateLimits = StateLimits(maxStateBytes: 300, maxListLength: 10) }
        let session = try api.newSession()
        var accepted = 0
        var refusal: RawHTTPResponse?
        for _ in 0..<10 {
            let answer = try api.send("POST", "/v1/screens/grow/selection", session: session, json: #"{"row": "grow"}"#)
            if answer.status == 200 { accepted += 1 } else { refusal = answer; break }
        }
        #expect(accepted == 5)  // 8 → 256 bytes fit; 512 do not
        #expect(refusal?.status == 422 && refusal?.problemSlug == "state-too-large")
        #expect(try api.revision(session, screen: "grow") == 5)
        let again = try api.send("POST", "/v1/screens/grow/selection", session: session, json: #"{"row": "grow", "eventId": "e1"}"#)
        #expect(again.status == 422)
        #expect(try api.revision(session, screen: "grow") == 5)
        let refusals = #"tabula_http_rejected_requests_total{reason="state-too-large"} 2"#
        #expect(try api.metrics(showing: refusals).contains(refusals))
    }

    @Test func listLimitIsMeasuredOnEveryList() {
        let limits = StateLimits(maxStateBytes: 10_000, maxListLength: 2)
        let state = SessionState(values: ["items": .list([Record(id: "a"), Record(id: "b"), Record(id: "c")])])
        #expect(limits.violation(of: state) == .listTooLong(key: "items", count: 3, limit: 2))
        #expect(StateLimits().violation(of: state) == nil)
    }

    /// A backend-patched `javascript:` URL reached the preview through an openURL effect;
    /// now an effect carries http, https, mailto, tel or a configured scheme only, and an
    /// event whose state makes another is 422 invalid-state and changes nothing.
    @Test func openURLEffectsCarryAllowedSchemesOnly() throws {
        let json = #"""
            {"id": "links", "title": "Links", "state": {"url": "https://example.com", "seen": false},
             "sections": [{"id": "s", "rows": [
               {"id": "go", "kind": "basic", "title": "Go", "onSelect": [{"toggle": "seen"}, {"open": "{{url}}"}]}]}]}
            """#
        let file = DefinitionFile(name: "links.json", bytes: Array(json.utf8))
        let backendKey = "links-backend-key-0123"
        for schemes in [URLSchemes.standardOnly, try URLSchemes(adding: ["myapp"])] {
            let api = try APITestServer(catalogue: try Catalogue.load([file], urlSchemes: schemes)) {
                $0.backendKey = APIKey(backendKey)
                $0.urlSchemes = schemes
            }
            let created = try api.send("POST", "/v1/sessions")
            let token = try #require(created.json.objectValue?["session"]?.stringValue)
            let id = try #require(created.json.objectValue?["id"]?.stringValue)
            func patch(_ url: String) throws {
                let written = try api.send(
                    "PATCH", "/v1/sessions/\(id)/state", headers: ["Authorization: Bearer \(backendKey)", "If-Match: *"],
                    json: #"{"url": "\#(url)"}"#, contentType: "application/merge-patch+json")
                #expect(written.status == 200, "\(written.bodyText)")
            }
            let fine = try api.send("POST", "/v1/screens/links/selection", session: token, json: #"{"row": "go"}"#)
            #expect(fine.status == 200 && fine.bodyText.contains(#"{"type":"openURL","url":"https://example.com"}"#), "\(fine.bodyText)")
            for url in ["javascript:alert(document.cookie)", "JavaScript:x", "data:text/html,hi", "file:///etc/passwd", "//evil.example", "myapp://deep"] {
                try patch(url)
                let revision = try api.revision(token, screen: "links")
                let answer = try api.send("POST", "/v1/screens/links/selection", session: token, json: #"{"row": "go"}"#)
                if url.hasPrefix("myapp"), schemes.allowed.contains("myapp") {
                    #expect(answer.status == 200, "\(url): \(answer.bodyText)")
                    continue
                }
                #expect(answer.status == 422 && answer.problemSlug == "invalid-state", "\(url): \(answer.status) \(answer.bodyText)")
                #expect(try api.revision(token, screen: "links") == revision, "\(url): the refused event changed the state")
            }
        }
    }
}
