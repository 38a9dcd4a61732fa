import Logging
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport
import Testing

@testable import TabulaService

/// Repeated GETs answered from the response cache (through `quickAnswer`, before routing)
/// must be byte for byte what the routed path (`handle`) sends, and only requests the routed
/// path answered unchanged may be repeated from it. One service behind two real servers: one
/// offers unparsed GETs to `quickAnswer`, the other only ever calls `handle`. The cache is
/// per server thread, and a connection stays on its thread: repeats go on one connection.
@Suite struct ResponseCacheTests {
    /// The service with quick answers turned off: `HTTPHandler`'s defaults.
    struct FullPathOnly: HTTPHandler {
        let service: TabulaService
        func handle(_ request: Request, responder: Responder) { service.handle(request, responder: responder) }
        func refusal(_ reason: RejectionReason, under configuration: ServerConfiguration) -> Response {
            service.refusal(reason, under: configuration)
        }
    }

    /// Keeps what the server reports of each request, and passes it on.
    final class RecordingObserver: HTTPServerObserver, @unchecked Sendable {
        let next: any HTTPServerObserver
        let summaries = Locked<[RequestSummary]>([])

        init(_ next: any HTTPServerObserver) {
            self.next = next
        }

        func requestCompleted(_ summary: borrowing RequestSummary) {
            let kept = copy summary
            summaries.withLock { $0.append(kept) }
            next.requestCompleted(kept)
        }

        func requestRejected(_ reason: RejectionReason) {
            next.requestRejected(reason)
        }
    }

    final class Pair {
        let service: TabulaService
        let quick: HTTPServer
        let full: HTTPServer
        /// What the quick server reported.
        let quickReports: RecordingObserver
        let store: any SessionStore
        /// Keeps a store's directory until the servers are gone.
        private let factory: StoreFactory

        init(store kind: StoreKind = .memory, configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
            var configuration = ServiceConfiguration()
            configure(&configuration)
            var logger = Logger(label: "response-cache-test")
            logger.logLevel = .warning
            let catalogue = try APITestServer.fixtures()
            factory = try StoreFactory(kind)
            store = try factory.open(catalogue)
            service = try TabulaService(configuration: configuration, catalogue: catalogue, store: store, logger: logger)
            var server = ServerConfiguration()
            server.port = 0
            server.threads = 2
            quickReports = RecordingObserver(service.observer)
            quick = HTTPServer(configuration: server, handler: service, observer: quickReports, logger: logger)
            full = HTTPServer(configuration: server, handler: FullPathOnly(service: service), observer: service.observer, logger: logger)
            try quick.start()
            try full.start()
        }

        /// Stops in the service group's order: the servers, the service's threads, the store.
        deinit {
            quick.shutdown()
            full.shutdown()
            service.close()
            store.close()
        }

        /// Sends a request head twice on one connection to the quick server and once to the
        /// full one; expects the three answers equal (but for Date), and returns the last
        /// quick one and how many of the two the response cache answered.
        @discardableResult
        func repeated(_ head: String, _ comment: Comment) throws -> (response: RawHTTPResponse, fromCache: Int) {
            let before = quick.quickAnswerCount
            let connection = try RawHTTPConnection(port: quick.port)
            try connection.send(head)
            let first = try connection.readResponse(forHEAD: head.hasPrefix("HEAD "))
            try connection.send(head)
            let second = try connection.readResponse(forHEAD: head.hasPrefix("HEAD "))
            let viaFull = try Self.send(head, port: full.port)
            for viaQuick in [first, second] {
                #expect(viaQuick.status == viaFull.status, comment)
                #expect(Self.headersButDate(viaQuick) == Self.headersButDate(viaFull), comment)
                #expect(viaQuick.body == viaFull.body, comment)
            }
            return (second, quick.quickAnswerCount - before)
        }

        static func send(_ head: String, port: UInt16) throws -> RawHTTPResponse {
            let connection = try RawHTTPConnection(port: port)
            try connection.send(head)
            return try connection.readResponse(forHEAD: head.hasPrefix("HEAD "))
        }

        static func headersButDate(_ response: RawHTTPResponse) -> [String] {
            response.headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name.lowercased()): \($0.value)" }
        }

        func newSession(_ extraHeaders: String = "") throws -> String {
            let created = try Self.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\n\(extraHeaders)Content-Length: 0\r\n\r\n", port: full.port)
            guard let token = try JSONParser().parse(created.body).objectValue?["session"]?.stringValue else {
                throw RawHTTPError("no session: \(created.status) \(created.bodyText)")
            }
            // One event, so that the session's screen differs from the default one.
            let body = #"{"row": "wifi", "isOn": false}"#
            let event = try Self.send(
                "POST /v1/screens/settings/switch HTTP/1.1\r\nHost: x\r\nX-Session: \(token)\r\n\(extraHeaders)"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", port: full.port)
            guard event.status == 200 else { throw RawHTTPError("event: \(event.status) \(event.bodyText)") }
            return token
        }
    }

    @Test func repeatsAreAnsweredFromMemoryWithTheRoutedBytes() throws {
        let pair = try Pair()
        let session = try pair.newSession()
        let get = "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n"
        let etag = try Pair.send(get + "\r\n", port: pair.full.port).header("ETag") ?? ""
        let plain: [(head: String, status: Int)] = [
            (get, 200),
            ("GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nx-session: \(session)\r\nAccept: */*\r\nUser-Agent: t\r\n", 200),
            ("GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\n", 200),
            ("GET /v1/screens/settings HTTP/1.0\r\nConnection: keep-alive\r\nX-Session: \(session)\r\n", 200),
            (get + "If-None-Match: \(etag)\r\n", 304),
            (get + "if-none-match: \"other\", \(etag)\r\n", 304),
            (get + "If-None-Match: *\r\n", 304),
            (get + "If-None-Match: \"other\"\r\n", 200),
            (get + "If-None-Match: W/\(etag)\r\n", 304),
            // Tabs are optional whitespace too, around the value (which libmicrohttpd keeps
            // at its end) and around a tag of the list.
            (get + "If-None-Match: \(etag)\t\r\n", 304),
            (get + "If-None-Match: \"other\",\t\(etag)\r\n", 304),
            // The route decodes the escape; a repeat has the same bytes.
            ("GET /v1/screens/sett%69ngs HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n", 200),
        ]
        for (number, (head, status)) in plain.enumerated() {
            // A header of its own, so that no earlier request filled the entry.
            let answer = try pair.repeated(head + "X-Probe: \(number)\r\n\r\n", "\(head)")
            #expect(answer.response.status == status, "\(head)")
            #expect(answer.fromCache == 1, "the repeat was not answered from memory: \(head)")
        }
        #expect(try pair.repeated(get + "\r\n", "session screen").response.json.objectValue?["revision"]?.intValue == 1)
        #expect(pair.full.quickAnswerCount == 0)
    }

    @Test func onlyAnswersSentUnchangedAreRepeated() throws {
        let pair = try Pair { $0.cors = try? CORSPolicy(origins: ["https://app.example.com"]) }
        let session = try pair.newSession()
        let etag =
            try Pair.send("GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n", port: pair.full.port)
            .header("ETag") ?? ""
        let unknown = String(repeating: "A", count: 32)
        let heads = [
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(unknown)\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: not-a-token\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session.dropLast())!\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session.dropLast(2))\u{E9}\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nX-Session: \(session)\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nIf-None-Match: \(etag)\r\nIf-None-Match: \"x\"\r\n\r\n",
            // CORS fields are added to the answer: not the screen's prepared response.
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nIf-None-Match: \(etag)\r\nOrigin: https://app.example.com\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nOrigin: https://app.example.com\r\n\r\n",
            "GET /v1/screens/settings?since=0 HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n",
            "GET /v1/screens/settings? HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /v1/screens/settings/ HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /v1/screens/nowhere HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nContent-Length: 0\r\n\r\n",
            "HEAD /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n",
        ]
        for head in heads {
            #expect(try pair.repeated(head, "\(head)").fromCache == 0, "\(head)")
        }
        #expect(pair.quick.quickAnswerCount == 0)
        // An origin the policy does not allow gets no CORS fields: its answer is repeated.
        let elsewhere = "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nOrigin: https://elsewhere.example.com\r\n\r\n"
        #expect(try pair.repeated(elsewhere, "elsewhere").fromCache == 1)
    }

    @Test func withAnAPIKeyOnlyTheRightKeysRepeatsAreAnsweredFromMemory() throws {
        let pair = try Pair { $0.apiKey = APIKey("s3cret-api-key-0123") }
        let session = try pair.newSession("Authorization: Bearer s3cret-api-key-0123\r\n")
        let get = "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n"
        let wrong = [
            "", "Authorization: Bearer s3cret-api-key-0124\r\n", "Authorization: Bearer s3cret-api-key-0123-longer\r\n",
            "Authorization: Bearer s3cret-api-key-012\r\n", "Authorization: Basic s3cret-api-key-0123\r\n",
            "Authorization: Bearer s3cret-api-key-0123\r\nAuthorization: Bearer s3cret-api-key-0123\r\n",
        ]
        for authorization in wrong {
            let answer = try pair.repeated(get + authorization + "\r\n", "\(authorization)")
            #expect(answer.response.status == 401)
            #expect(answer.fromCache == 0)
        }
        for authorization in ["Authorization: Bearer s3cret-api-key-0123\r\n", "authorization: bEARER s3cret-api-key-0123\r\n"] {
            let answer = try pair.repeated(get + authorization + "\r\n", "\(authorization)")
            #expect(answer.response.status == 200)
            #expect(answer.fromCache == 1)
        }
        // On a connection whose thread remembers the right key's answer, a wrong key is routed.
        let connection = try RawHTTPConnection(port: pair.quick.port)
        for authorization in ["Authorization: Bearer s3cret-api-key-0123\r\n"] + wrong + ["Authorization: Bearer s3cret-api-key-0123\r\n"] {
            try connection.send(get + authorization + "\r\n")
            #expect(try connection.readResponse().status == (wrong.contains(authorization) ? 401 : 200), "\(authorization)")
        }
    }

    /// A connection's quick requests share one object of the server's, which keeps the last
    /// target's string: each report must still name its own request, across targets,
    /// sessions, routed requests and answers from memory.
    @Test func eachRequestOnAConnectionIsReportedAsItself() throws {
        let pair = try Pair()
        let first = try pair.newSession()
        let second = try pair.newSession()
        let connection = try RawHTTPConnection(port: pair.quick.port)
        let requests: [(path: String, session: String?, fromCache: Bool)] = [
            ("/v1/screens/settings", first, false),
            ("/v1/screens/settings", first, true),
            ("/v1/screens/users", second, false),
            ("/v1/screens/settings?since=0", first, false),
            ("/v1/screens/settings", nil, false),
            ("/v1/screens/users", second, true),
            ("/v1/screens/static-text", second, false),
            ("/v1/screens/settings", second, false),
            ("/v1/screens/settings", nil, true),
            ("/v1/screens/settings", first, true),
        ]
        for request in requests {
            let session = request.session.map { "X-Session: \($0)\r\n" } ?? ""
            try connection.send("GET \(request.path) HTTP/1.1\r\nHost: x\r\n\(session)\r\n")
            #expect(try connection.readResponse().status == 200, "\(request.path)")
        }
        // Reported once the answer is sent, which may be just after the client has read it.
        #expect(eventually { pair.quickReports.summaries.withLock { $0.count } >= requests.count })
        let reports = pair.quickReports.summaries.withLock { $0 }
        // The routed path reports the path without its query.
        #expect(reports.map(\.path) == requests.map { String($0.path.prefix { $0 != "?" }) })
        #expect(reports.map(\.status) == requests.map { _ in 200 })
        #expect(reports.map(\.logContext) == requests.map { $0.session.map { String($0.prefix(8)) } })
        #expect(reports.map(\.route) == requests.map { _ in "/v1/screens/{id}" })
        #expect(pair.quick.quickAnswerCount == requests.filter(\.fromCache).count)
        #expect(reports.allSatisfy { $0.remoteAddress == "127.0.0.1" && $0.method == "GET" })
    }

    /// The stores that know a session's current state without waiting (PostgreSQL never
    /// does, and its GETs are always routed).
    @Test(arguments: [StoreKind.memory, .sqlite])
    func aRememberedAnswerFollowsTheSessionsState(kind: StoreKind) throws {
        let pair = try Pair(store: kind)
        let session = try pair.newSession()
        let get = "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n"
        let connection = try RawHTTPConnection(port: pair.quick.port)
        try connection.send(get)
        let first = try connection.readResponse()
        for revision in 2...4 {
            let body = #"{"row": "wifi", "isOn": \#(revision % 2 == 0)}"#
            try connection.send(
                "POST /v1/screens/settings/switch HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(try connection.readResponse().status == 200)
            // The first GET finds the remembered screen stale and is routed; the second repeats it.
            for _ in 0..<2 {
                try connection.send(get)
                let answer = try connection.readResponse()
                #expect(answer.json.objectValue?["revision"]?.intValue == revision)
                #expect(answer.header("ETag") != first.header("ETag"))
            }
        }
        #expect(pair.quick.quickAnswerCount == 3)
    }

    /// A removed session's remembered screen is never answered: its watch has ended.
    @Test func aRemovedSessionsScreenIsNotRepeated() throws {
        let pair = try Pair()
        let created = try Pair.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", port: pair.full.port)
        let object = try #require(try JSONParser().parse(created.body).objectValue)
        let token = try #require(object["session"]?.stringValue)
        let id = try #require(object["id"]?.stringValue)
        let get = "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(token)\r\n\r\n"
        let connection = try RawHTTPConnection(port: pair.quick.port)
        for _ in 0..<2 {
            try connection.send(get)
            #expect(try connection.readResponse().status == 200)
        }
        #expect(pair.quick.quickAnswerCount == 1)
        let removed = Locked<Result<Bool, StoreError>?>(nil)
        pair.store.deleteSession(id: id) { result in removed.withLock { $0 = result } }
        #expect(eventually { removed.withLock { $0 } != nil })
        #expect(try removed.withLock { $0 }?.get() == true)
        try connection.send(get)
        #expect(try connection.readResponse().status == 401)
        #expect(pair.quick.quickAnswerCount == 1)
    }
}

/// The bytes an entry compares a request with, for the case no request can make on purpose:
/// two requests whose fingerprints collide.
@Suite struct ResponseCacheKeyTests {
    private func key(_ pieces: [String]) -> ResponseCache.KeyBytes {
        var key = ResponseCache.KeyBytes()
        for piece in pieces { Array(piece.utf8).withUnsafeBytes { key.append($0) } }
        return key
    }

    private func matches(_ key: ResponseCache.KeyBytes, _ pieces: [String]) -> Bool {
        key.matches { piece in
            for text in pieces { Array(text.utf8).withUnsafeBytes { piece($0) } }
        }
    }

    @Test func onlyTheSamePiecesInTheSameOrderMatch() {
        let stored = key(["/v1/screens/settings", "Authorization", "Bearer key-0123456789abcdef", "X-Session", "token"])
        #expect(matches(stored, ["/v1/screens/settings", "Authorization", "Bearer key-0123456789abcdef", "X-Session", "token"]))
        let others: [[String]] = [
            ["/v1/screens/settings", "Authorization", "Bearer key-0123456789abcdeg", "X-Session", "token"],
            ["/v1/screens/settings", "Authorization", "Bearer key-0123456789abcde", "X-Session", "token"],
            ["/v1/screens/settings", "Authorization", "Bearer key-0123456789abcdef0", "X-Session", "token"],
            ["/v1/screens/settings", "X-Session", "token", "Authorization", "Bearer key-0123456789abcdef"],
            ["/v1/screens/settings", "Authorization", "Bearer key-0123456789abcdef", "X-Session"],
            ["/v1/screens/settings", "Authorization", "Bearer key-0123456789abcdef", "X-Session", "token", "Accept", "*/*"],
            // The same bytes cut into other pieces.
            ["/v1/screens/settingsAuthorization", "Bearer key-0123456789abcdef", "X-Session", "token", ""],
            [],
        ]
        for pieces in others { #expect(!matches(stored, pieces), "\(pieces)") }
        #expect(matches(key([]), []))
        #expect(!matches(key([]), [""]))
    }
}
