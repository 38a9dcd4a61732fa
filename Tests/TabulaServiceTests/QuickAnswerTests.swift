import Logging
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaService
import TabulaTestSupport
import Testing

/// Plain screen GETs answered through `quickAnswer` must be byte for byte what the full
/// path (`handle`) sends. One service behind two real servers: one offers unparsed GETs to
/// `quickAnswer`, the other only ever calls `handle`; every request goes to both.
@Suite struct QuickAnswerTests {
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
            var logger = Logger(label: "quick-answer-test")
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

        deinit {
            quick.shutdown()
            full.shutdown()
            store.close()
        }

        /// Sends the same request head to both servers; expects equal answers (but for Date).
        @discardableResult
        func both(_ head: String, _ comment: Comment) throws -> RawHTTPResponse {
            let viaQuick = try Self.send(head, port: quick.port)
            let viaFull = try Self.send(head, port: full.port)
            #expect(viaQuick.status == viaFull.status, comment)
            #expect(Self.headersButDate(viaQuick) == Self.headersButDate(viaFull), comment)
            #expect(viaQuick.body == viaFull.body, comment)
            return viaQuick
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

    @Test func unparsedGetsAreAnsweredQuicklyWithTheFullPathsBytes() throws {
        let pair = try Pair()
        let session = try pair.newSession()
        let get = "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n"
        let etag = try Pair.send(get + "\r\n", port: pair.full.port).header("ETag") ?? ""
        let plain: [(head: String, status: Int)] = [
            (get + "\r\n", 200),
            ("GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nx-session: \(session)\r\nAccept: */*\r\nUser-Agent: t\r\n\r\n", 200),
            ("GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\n\r\n", 200),
            ("GET /v1/screens/settings HTTP/1.0\r\nX-Session: \(session)\r\n\r\n", 200),
            (get + "If-None-Match: \(etag)\r\n\r\n", 304),
            (get + "if-none-match: \"other\", \(etag)\r\n\r\n", 304),
            (get + "If-None-Match: *\r\n\r\n", 304),
            (get + "If-None-Match: \"other\"\r\n\r\n", 200),
            (get + "If-None-Match: W/\(etag)\r\n\r\n", 304),
        ]
        for (head, status) in plain {
            let before = pair.quick.quickAnswerCount
            let answer = try pair.both(head, "\(head)")
            #expect(answer.status == status, "\(head)")
            #expect(pair.quick.quickAnswerCount == before + 1, "not answered quickly: \(head)")
        }
        let withSession = try pair.both(plain[0].head, "session screen")
        #expect(withSession.json.objectValue?["revision"]?.intValue == 1)
        #expect(pair.full.quickAnswerCount == 0)
    }

    @Test func everythingElseTakesTheFullPathWithTheSameAnswer() throws {
        let pair = try Pair { $0.cors = try? CORSPolicy(origins: ["https://app.example.com"]) }
        let session = try pair.newSession()
        let etag =
            try Pair.send("GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n", port: pair.full.port)
            .header("ETag") ?? ""
        let unknown = String(repeating: "A", count: 32)
        let heads = [
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(unknown)\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: not-a-token\r\n\r\n",
            // A token's length, not its shape: the quick path does not check the shape, but
            // such bytes can never be a stored session's key.
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session.dropLast())!\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session.dropLast(2))\u{E9}\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nX-Session: \(session)\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nIf-None-Match: \(etag)\r\nIf-None-Match: \"x\"\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nIf-None-Match: \(etag)\r\nOrigin: https://app.example.com\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nOrigin: https://app.example.com\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nOrigin: https://elsewhere.example.com\r\n\r\n",
            "GET /v1/screens/settings?since=0 HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n",
            "GET /v1/screens/settings? HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /v1/screens/sett%69ngs HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n",
            "GET /v1/screens/settings/ HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /v1/screens/nowhere HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nContent-Length: 0\r\n\r\n",
            "HEAD /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n",
        ]
        for head in heads {
            try pair.both(head, "\(head)")
        }
        #expect(pair.quick.quickAnswerCount == 0)
    }

    @Test func withAnAPIKeyOnlyTheRightKeyIsAnsweredQuickly() throws {
        let pair = try Pair { $0.apiKey = APIKey("s3cret-api-key-0123") }
        let session = try pair.newSession("Authorization: Bearer s3cret-api-key-0123\r\n")
        let get = "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n"
        for authorization in [
            "", "Authorization: Bearer s3cret-api-key-0124\r\n", "Authorization: Bearer s3cret-api-key-0123-longer\r\n",
            "Authorization: Basic s3cret-api-key-0123\r\n", "Authorization: Bearer s3cret-api-key-0123\r\nAuthorization: Bearer s3cret-api-key-0123\r\n",
        ] {
            #expect(try pair.both(get + authorization + "\r\n", "\(authorization)").status == 401)
        }
        #expect(pair.quick.quickAnswerCount == 0)
        for authorization in ["Authorization: Bearer s3cret-api-key-0123\r\n", "authorization: bEARER s3cret-api-key-0123\r\n"] {
            #expect(try pair.both(get + authorization + "\r\n", "\(authorization)").status == 200)
        }
        #expect(pair.quick.quickAnswerCount == 2)
    }

    /// A connection's quick requests share one object of the server's, which keeps the last
    /// target's string: each report must still name its own request, across targets,
    /// sessions, full-path requests and a client that leaves before its answer.
    @Test func eachQuickRequestOnAConnectionIsReportedAsItself() throws {
        let pair = try Pair()
        let first = try pair.newSession()
        let second = try pair.newSession()
        let connection = try RawHTTPConnection(port: pair.quick.port)
        let requests: [(path: String, session: String?, quick: Bool)] = [
            ("/v1/screens/settings", first, true),
            ("/v1/screens/settings", first, true),
            ("/v1/screens/users", second, true),
            ("/v1/screens/settings?since=0", first, false),
            ("/v1/screens/settings", nil, true),
            ("/v1/screens/static-text", second, true),
            ("/v1/screens/settings", second, true),
        ]
        for request in requests {
            let session = request.session.map { "X-Session: \($0)\r\n" } ?? ""
            try connection.send("GET \(request.path) HTTP/1.1\r\nHost: x\r\n\(session)\r\n")
            #expect(try connection.readResponse().status == 200, "\(request.path)")
        }
        // Reported once the answer is sent, which may be just after the client has read it.
        var reports: [RequestSummary] = []
        for _ in 0..<100 where reports.count < requests.count {
            usleep(10_000)
            reports = pair.quickReports.summaries.withLock { $0 }
        }
        // The full path reports the path without its query.
        #expect(reports.map(\.path) == requests.map { String($0.path.prefix { $0 != "?" }) })
        #expect(reports.map(\.status) == requests.map { _ in 200 })
        #expect(reports.map(\.logContext) == requests.map { $0.session.map { String($0.prefix(8)) } })
        #expect(reports.map(\.route) == requests.map { _ in "/v1/screens/{id}" })
        #expect(pair.quick.quickAnswerCount == requests.filter(\.quick).count)
        #expect(reports.allSatisfy { $0.remoteAddress == "127.0.0.1" && $0.method == "GET" })
    }

    /// The stores that know a session's current state without waiting (PostgreSQL never does).
    @Test(arguments: [StoreKind.memory, .sqlite])
    func aQuickAnswerFollowsTheSessionsState(kind: StoreKind) throws {
        let pair = try Pair(store: kind)
        let session = try pair.newSession()
        let get = "GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n"
        let first = try Pair.send(get, port: pair.quick.port)
        for revision in 2...4 {
            let body = #"{"row": "wifi", "isOn": \#(revision % 2 == 0)}"#
            let event = try Pair.send(
                "POST /v1/screens/settings/switch HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", port: pair.quick.port)
            #expect(event.status == 200)
            let answer = try Pair.send(get, port: pair.quick.port)
            #expect(answer.json.objectValue?["revision"]?.intValue == revision)
            #expect(answer.header("ETag") != first.header("ETag"))
        }
        #expect(pair.quick.quickAnswerCount == 4)
    }
}
