import Foundation
import HTTPTypes
import Logging
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaSamples
import TabulaService
import TabulaTestSupport
import Testing

/// `tabula`'s service in process. ``send(_:_:session:headers:json:contentType:from:over:)``
/// hands the request to the service as a value and takes its response back, with no
/// socket, unless told to go over the wire; the real libmicrohttpd server on a free
/// loopback port starts the first time a test asks for ``port`` (for raw connections,
/// streams, and what only the HTTP layer does). Tests may send from several threads at
/// once: each request waits on its own queue.
final class APITestServer: @unchecked Sendable {
    /// Started and stopped as `tabula serve` starts and stops; the test owns the store.
    let group: ServiceGroup
    var server: HTTPServer { group.server }
    var service: TabulaService { group.service }
    let store: any SessionStore
    private let listening = Locked(false)

    /// The live server's port; it starts the server on first use.
    var port: UInt16 {
        let started = listening.withLock { listening -> Bool in
            defer { listening = true }
            return listening
        }
        if !started {
            do {
                try group.start()
            } catch {
                Issue.record("the live server did not start: \(error)")
            }
        }
        return server.port
    }

    /// How a request reaches the service.
    enum Path {
        /// As a value, to the service's handler: no socket.
        case inProcess
        /// Over a new connection to the live server.
        case socket
    }

    init(
        catalogue: Catalogue? = nil, store: (any SessionStore)? = nil, maxBody: Int = 64 * 1024,
        configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws {
        let catalogue = try catalogue ?? Self.fixtures()
        let store = store ?? MemorySessionStore()
        self.store = store
        var serviceConfiguration = ServiceConfiguration()
        configure(&serviceConfiguration)
        var logger = Logger(label: "api-test")
        logger.logLevel = .warning
        let service = try TabulaService(configuration: serviceConfiguration, catalogue: catalogue, store: store, logger: logger)
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.threads = 2
        configuration.maxBodyBytes = maxBody
        group = ServiceGroup(store: store, service: service, server: configuration, logger: logger, closesStore: false)
    }

    deinit {
        group.stop()
    }

    /// The bundled screens with their string tables. The inbox's messages make every
    /// session's state some tens of kilobytes, which the suites that measure states, lists
    /// and history against small limits do not expect: it is left out unless asked for, with
    /// the message screen that shows one of its messages.
    static func fixtures(withInbox: Bool = false) throws -> Catalogue {
        try FixtureFiles.catalogue(
            directory: repositoryRoot.appendingPathComponent("Fixtures/screens").path, excluding: withInbox ? [] : ["inbox.json", "message.json"])
    }

    /// Sends one request and reads the answer: in process (`HEAD`, whose body only the HTTP
    /// layer leaves out, goes over a socket), or over a new connection.
    func send(
        _ method: String, _ path: String, session: String? = nil, headers: [String] = [], json: String? = nil,
        contentType: String? = "application/json", from sourceAddress: String? = nil, over route: Path = .inProcess
    ) throws -> RawHTTPResponse {
        var fields = [("Host", "127.0.0.1")]
        if let session { fields.append(("X-Session", session)) }
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else { throw RawHTTPError("not a header: \(header)") }
            fields.append((String(header[..<colon]), String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        if let json {
            if let contentType { fields.append(("Content-Type", contentType)) }
            fields.append(("Content-Length", "\(json.utf8.count)"))
        }
        guard route == .inProcess, method != "HEAD", let httpMethod = HTTPRequest.Method(method) else {
            return try sendOverSocket(method, path, fields: fields, body: json, from: sourceAddress)
        }
        let target = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query: [(name: String, value: String?)] =
            target.count < 2
            ? []
            : target[1].split(separator: "&").map { argument in
                let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count == 2 ? String(parts[1]) : nil)
            }
        let started = ContinuousClock.now
        let request = Request(
            method: httpMethod, rawPath: String(target[0]), rawQuery: query, headers: RequestHeaders(fields), body: Array((json ?? "").utf8),
            remoteAddress: sourceAddress ?? "127.0.0.1", receivedAt: started)
        let delivered = BlockingQueue<Response>(capacity: 1)
        service.handle(request, responder: Responder { _ = delivered.push($0) })
        guard let response = delivered.take(maximum: 1, timeout: 20)?.first else {
            throw RawHTTPError("\(method) \(path): no answer within 20 seconds", isTimeout: true)
        }
        // What the live server reports of every request, for metrics and the access log.
        service.observer.requestCompleted(
            RequestSummary(
                method: method, path: request.rawPath, status: response.status.code, route: response.route, duration: ContinuousClock.now - started,
                remoteAddress: request.remoteAddress, logContext: response.logContext, rejection: response.rejection))
        return RawHTTPResponse(
            status: response.status.code, headers: response.headerFields.map { ($0.name.canonicalName, $0.value) }, body: response.body)
    }

    private func sendOverSocket(
        _ method: String, _ path: String, fields: [(String, String)], body: String?, from sourceAddress: String?
    ) throws -> RawHTTPResponse {
        let connection = try RawHTTPConnection(port: port, sourceAddress: sourceAddress)
        var head = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "\r\n" + (body ?? "")
        try connection.send(head)
        return try connection.readResponse(forHEAD: method == "HEAD")
    }

    /// The `/metrics` text once it has `line`, or the last one read after `seconds`. A
    /// request is counted when libmicrohttpd reports it complete, which can come after the
    /// client has its answer and after a scrape on another connection was served.
    func metrics(showing line: String, within seconds: Int = 10) throws -> String {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let text = try send("GET", "/metrics").bodyText
            if text.contains(line) || ContinuousClock.now >= deadline { return text }
            usleep(20_000)
        }
    }

    /// `GET /v1/feed` with `query` once `holds` is true of the answer, or the last answer
    /// read after 30 seconds. On PostgreSQL an entry is readable only once every transaction
    /// begun before its own has ended, in the whole cluster the tests share: another test's
    /// open transaction can hold an entry back well past its event's answer.
    func feed(_ query: String = "", until holds: (RawHTTPResponse) -> Bool) throws -> RawHTTPResponse {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let answer = try send("GET", "/v1/feed" + query, headers: [BackendAPITests.authorization])
            if holds(answer) || ContinuousClock.now >= deadline { return answer }
            usleep(20_000)
        }
    }

    func newSession() throws -> String {
        let response = try send("POST", "/v1/sessions")
        guard response.status == 201, let token = try JSONParser().parse(response.body).objectValue?["session"]?.stringValue else {
            throw ServerProcessError("no session: \(response.status) \(response.bodyText)")
        }
        return token
    }

    /// A new session made with the backend key: its token, and its id for the backend's
    /// reads (the server must have `BackendAPITests.key`).
    func newBackendSession() throws -> (token: String, id: String) {
        let created = try send("POST", "/v1/sessions", headers: [BackendAPITests.authorization], json: "{}")
        guard created.status == 201, let body = created.json.objectValue, let token = body["session"]?.stringValue, let id = body["id"]?.stringValue
        else { throw ServerProcessError("no session: \(created.status) \(created.bodyText)") }
        return (token, id)
    }

    func revision(_ session: String, screen: String = "settings") throws -> Int {
        let response = try send("GET", "/v1/screens/\(screen)", session: session)
        return try JSONParser().parse(response.body).objectValue?["revision"]?.intValue ?? -1
    }
}

extension RawHTTPResponse {
    var json: JSONValue { (try? JSONParser().parse(body)) ?? .null }

    /// The problem document's `type` slug (after `urn:tabula:problem:`).
    var problemSlug: String? {
        json.objectValue?["type"]?.stringValue.map { String($0.dropFirst("urn:tabula:problem:".count)) }
    }
}
