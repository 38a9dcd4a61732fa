import Foundation
import TabulaModel
import TabulaTestSupport

/// `tabula serve` on SQLite, on a copy of the fixtures it watches, behind a proxy that can
/// cut its connections: the service a client test drives and breaks.
final class LiveService: @unchecked Sendable {
    static let backendKey = "client-tests-backend-key-0123456789"
    let directory: URL
    let proxy: FreezableProxy
    let port: UInt16
    private(set) var server: ServerProcess
    /// Arguments of `tabula serve` besides the ones every test's service has.
    let extraArguments: [String]

    init(_ extraArguments: [String] = []) throws {
        self.extraArguments = extraArguments
        directory = try makeTemporaryDirectory()
        try FileManager.default.copyItem(
            at: repositoryRoot.appendingPathComponent("Fixtures/screens"), to: directory.appendingPathComponent("screens"))
        try FileManager.default.copyItem(
            at: repositoryRoot.appendingPathComponent("Fixtures/strings"), to: directory.appendingPathComponent("strings"))
        server = try ServerProcess(arguments: Self.arguments(directory) + extraArguments)
        port = server.port
        proxy = try FreezableProxy(to: port)
    }

    deinit {
        proxy.close()
        server.signal(SIGKILL)
        _ = server.waitForExit(seconds: 10)
        try? FileManager.default.removeItem(at: directory)
    }

    var screens: URL { directory.appendingPathComponent("screens") }

    /// The service's address as clients see it: through the proxy.
    var url: String { "http://127.0.0.1:\(proxy.port)" }

    private static func arguments(_ directory: URL) -> [String] {
        [
            "--store", "sqlite", "--data-dir", directory.appendingPathComponent("data").path,
            "--screens", directory.appendingPathComponent("screens").path, "--watch", "--stream-heartbeat", "1s",
            "--backend-key", backendKey,
        ]
    }

    /// Kills the service with SIGKILL and starts it again on the same port and data.
    func killAndRestart() throws {
        kill()
        try restart()
    }

    /// Kills the service; its proxy goes on accepting, and finds nothing behind it.
    func kill() {
        server.signal(SIGKILL)
        _ = server.waitForExit(seconds: 10)
    }

    /// Starts the service again, on its port, with its data.
    func restart() throws {
        server = try ServerProcess(arguments: Self.arguments(directory) + extraArguments, port: port)
    }

    /// A request straight to the service (not through the proxy).
    func request(_ method: String, _ path: String, headers: [String] = [], body: String? = nil) throws -> RawHTTPResponse {
        let connection = try RawHTTPConnection(port: port, timeout: 10)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for header in headers { head += header + "\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        try connection.send(head + "\r\n" + (body ?? ""))
        return try connection.readResponse()
    }

    /// The session's screen as `GET` answers it now.
    func screen(_ id: String, token: String) throws -> Screen {
        let answer = try request("GET", "/v1/screens/\(id)", headers: ["X-Session: \(token)"])
        guard answer.status == 200 else { throw ServerProcessError("GET \(id): \(answer.status) \(answer.bodyText)") }
        return try Screen(jsonBytes: answer.body)
    }

    /// The session's public id, from its token (`POST` answers both; the test asks the feed).
    func backend(_ method: String, _ path: String, headers: [String] = [], body: String? = nil) throws -> RawHTTPResponse {
        try request(method, path, headers: ["Authorization: Bearer \(Self.backendKey)"] + headers, body: body)
    }

    /// Every feed entry of the store, oldest first.
    func feed() throws -> [JSONObject] {
        var entries: [JSONObject] = []
        var after: String?
        while true {
            let answer = try backend("GET", "/v1/feed?limit=1000" + (after.map { "&after=\($0)" } ?? ""))
            guard answer.status == 200, let page = try JSONParser().parse(answer.body).objectValue,
                let items = page["entries"]?.arrayValue
            else { throw ServerProcessError("feed: \(answer.status) \(answer.bodyText)") }
            entries += items.compactMap(\.objectValue)
            guard !items.isEmpty else { return entries }
            after = page["next"]?.stringValue
        }
    }
}
