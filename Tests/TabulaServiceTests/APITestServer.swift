import Foundation
import Logging
import TabulaCore
import TabulaHTTP
import TabulaSamples
import TabulaService
import TabulaTestSupport

/// `tabula`'s service on a real libmicrohttpd server, on a free loopback port, in process.
final class APITestServer {
    /// Started and stopped as `tabula serve` starts and stops; the test owns the store.
    let group: ServiceGroup
    var server: HTTPServer { group.server }
    var service: TabulaService { group.service }
    let store: any SessionStore
    var port: UInt16 { server.port }

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
        try group.start()
    }

    deinit {
        group.stop()
    }

    /// The bundled screens with their string tables.
    static func fixtures() throws -> Catalogue {
        try FixtureFiles.catalogue(directory: repositoryRoot.appendingPathComponent("Fixtures/screens").path)
    }

    /// Sends one request on a new connection and reads the answer.
    func send(
        _ method: String, _ path: String, session: String? = nil, headers: [String] = [], json: String? = nil,
        contentType: String? = "application/json", from sourceAddress: String? = nil
    ) throws -> RawHTTPResponse {
        let connection = try RawHTTPConnection(port: port, sourceAddress: sourceAddress)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let session { head += "X-Session: \(session)\r\n" }
        for header in headers { head += header + "\r\n" }
        if let json {
            if let contentType { head += "Content-Type: \(contentType)\r\n" }
            head += "Content-Length: \(json.utf8.count)\r\n\r\n" + json
        } else {
            head += "\r\n"
        }
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

    func newSession() throws -> String {
        let response = try send("POST", "/v1/sessions")
        guard response.status == 201, let token = try JSONParser().parse(response.body).objectValue?["session"]?.stringValue else {
            throw ServerProcessError("no session: \(response.status) \(response.bodyText)")
        }
        return token
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
