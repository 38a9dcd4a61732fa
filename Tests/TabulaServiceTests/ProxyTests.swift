import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport
import Testing

/// The bundled proxy set-up, `deploy/nginx.conf` in a real nginx, in front of two
/// `tabula serve` processes sharing PostgreSQL, as `compose.yaml` runs them.
@Suite(.serialized) struct ProxyTests {
    struct Deployment {
        let instances: [ServerProcess]
        let nginx: NginxProcess

        init(arguments: [String] = []) throws {
            let database = try PostgresCluster.shared.get().makeDatabase()
            instances = try (0..<2).map { _ in
                try ServerProcess(
                    arguments: [
                        "--store", "postgres", "--database-url", database, "--max-connections-per-ip", "0", "--shutdown-grace", "3",
                        "--trusted-proxy", "127.0.0.1",
                    ] + arguments)
            }
            nginx = try NginxProcess(upstreamPorts: instances.map(\.port))
        }

        func send(_ request: String) throws -> RawHTTPResponse {
            let connection = try RawHTTPConnection(port: nginx.port)
            try connection.send(request)
            return try connection.readResponse()
        }
    }

    /// Behind nginx (a trusted proxy, which names the client, its peer, in
    /// X-Forwarded-For), the new sessions of each client are counted for that client, on
    /// each instance: one client meets the limit, another is not held back by it.
    @Test func newSessionsAreCountedPerClientBehindTheProxy() throws {
        let deployment = try Deployment(arguments: ["--max-new-sessions-per-minute", "3"])
        func create(from address: String) throws -> Int {
            let connection = try RawHTTPConnection(port: deployment.nginx.port, sourceAddress: address)
            try connection.send("POST /v1/sessions HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: 192.0.2.1\r\nContent-Length: 0\r\n\r\n")
            return try connection.readResponse().status
        }
        let statuses = try (0..<10).map { _ in try create(from: "127.0.0.2") }
        #expect(statuses.filter { $0 == 201 }.count <= 6, "\(statuses)")
        #expect(statuses.filter { $0 == 429 }.count >= 4, "\(statuses)")
        #expect(try create(from: "127.0.0.3") == 201)
    }

    /// A rolling deployment stops one instance (SIGTERM) while clients keep asking through
    /// nginx: every request gets its answer from one instance or the other, none a 502,
    /// 503 or a dropped connection.
    @Test func stoppingAnInstanceUnderLoadLosesNoRequest() throws {
        let deployment = try Deployment()
        let sessions = try (0..<16).map { _ -> String in
            let created = try deployment.send("POST /v1/sessions HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
            return try #require(created.json.objectValue?["session"]?.stringValue, "\(created.status) \(created.bodyText)")
        }
        let outcomes = Locked<[String: Int]>([:])
        let stop = Locked(false)
        let port = deployment.nginx.port
        let clients = DispatchGroup()
        for client in 0..<8 {
            DispatchQueue.global().async(group: clients) {
                var connection: RawHTTPConnection?
                var index = client
                while !stop.withLock({ $0 }) {
                    let outcome: String
                    do {
                        let open = try connection ?? RawHTTPConnection(port: port)
                        connection = open
                        try open.send("GET /v1/screens/settings HTTP/1.1\r\nHost: localhost\r\nX-Session: \(sessions[index % sessions.count])\r\n\r\n")
                        let response = try open.readResponse()
                        outcome = String(response.status)
                        if response.header("Connection")?.lowercased() == "close" { connection = nil }
                    } catch {
                        outcome = "connection error: \(error)"
                        connection = nil
                    }
                    outcomes.withLock { $0[outcome, default: 0] += 1 }
                    index += 8
                }
            }
        }
        func total() -> Int { outcomes.withLock { $0.values.reduce(0, +) } }
        /// Waits until the clients made `count` requests (slow builds, such as the
        /// ThreadSanitizer's, take longer to get there), at most 30 seconds.
        func waitForRequests(_ count: Int) {
            let deadline = Date().addingTimeInterval(30)
            while total() < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        }
        waitForRequests(200)
        let before = total()
        deployment.instances[0].signal(SIGTERM)
        let status = deployment.instances[0].waitForExit(seconds: 10)
        #expect(status == 0, "the stopped instance ended with \(status.map(String.init) ?? "nothing"); its log:\n\(deployment.instances[0].log.suffix(3000))")
        waitForRequests(before + 200)
        stop.withLock { $0 = true }
        clients.wait()
        let counts = outcomes.withLock { $0 }
        #expect(counts.keys.sorted() == ["200"], "answers other than 200: \(counts)")
        #expect(before > 100 && total() > before + 100, "the load made too few requests to tell: \(counts)")
        let log = deployment.instances[0].log
        #expect(log.components(separatedBy: "GET /v1/screens/settings 200").count > 10, "the stopped instance served no share of the load")
    }

    /// A body over the limit gets Tabula's problem document, not a page of nginx's, however
    /// it is framed and however large (nginx's own default limit is 1 MB); one under it is
    /// served.
    /// A stream through nginx follows events sent through nginx to either instance; when
    /// its instance stops, the stream ends, and the client's reconnect with its
    /// Last-Event-ID reaches the other instance and catches up from its copy.
    @Test func aStreamThroughNginxFollowsBothInstancesAndMovesWhenOneStops() throws {
        let deployment = try Deployment()
        let created = try deployment.send("POST /v1/sessions HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
        let token = try #require(created.json.objectValue?["session"]?.stringValue)
        let stream = try EventStreamClient(
            port: deployment.nginx.port, path: "/v1/screens/settings/stream", headers: ["X-Session: \(token)"])
        #expect(stream.head.status == 200)
        #expect(try stream.nextEvent()?.event == "screen")
        func switchBluetooth(_ isOn: Bool) throws {
            let body = #"{"row": "bluetooth", "isOn": \#(isOn)}"#
            let answer = try deployment.send(
                "POST /v1/screens/settings/switch HTTP/1.1\r\nHost: localhost\r\nX-Session: \(token)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            #expect(answer.status == 200, "\(answer.bodyText)")
        }
        // nginx spreads the events over both instances; the stream sees each.
        var lastID = ""
        for round in 0..<6 {
            try switchBluetooth(round % 2 == 0)
            let event = try #require(try stream.nextEvent())
            #expect(event.event == "changes" && event.id?.hasSuffix(":\(round + 1)") == true, "\(event)")
            lastID = event.id ?? ""
        }
        // One instance stops: a stream it held ends at once, and the client reconnects
        // through nginx, to the other, from its last event; a change made meanwhile
        // reaches it either way.
        deployment.instances[0].signal(SIGTERM)
        #expect(deployment.instances[0].waitForExit(seconds: 10) == 0)
        try switchBluetooth(true)
        var client = stream
        var event = try client.nextEvent()
        if event == nil {
            client = try EventStreamClient(
                port: deployment.nginx.port, path: "/v1/screens/settings/stream",
                headers: ["X-Session: \(token)", "Last-Event-ID: \(lastID)"])
            #expect(client.head.status == 200)
            event = try client.nextEvent()
        }
        #expect(event?.event == "changes" && event?.id?.hasSuffix(":7") == true, "\(String(describing: event))")
        let data = try JSONParser().parse(Array((event?.data ?? "").utf8)).objectValue
        #expect(data?["fromRevision"]?.intValue == 6 && data?["toRevision"]?.intValue == 7)
    }

    @Test func aLargeBodyGetsTabulasProblemThroughNginx() throws {
        let deployment = try Deployment()
        let created = try deployment.send("POST /v1/sessions HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
        let session = try #require(created.json.objectValue?["session"]?.stringValue)
        let event = #"{"row": "dark"}"#
        let served = try deployment.send(
            "POST /v1/screens/settings/selection HTTP/1.1\r\nHost: localhost\r\nX-Session: \(session)\r\nContent-Type: application/json\r\nContent-Length: \(event.utf8.count)\r\n\r\n\(event)"
        )
        #expect(served.status == 200, "\(served.bodyText)")
        let body = "{\"row\": \"" + String(repeating: "x", count: 2 << 20) + "\"}"
        for framing in ["Content-Length: \(body.utf8.count)\r\n\r\n" + body, "Transfer-Encoding: chunked\r\n\r\n" + Self.chunked(body)] {
            let response = try deployment.send(
                "POST /v1/screens/settings/selection HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\(framing)")
            #expect(response.status == 413, "\(framing.prefix(30)): \(response.status) \(response.bodyText.prefix(200))")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.problemSlug == "body-too-large")
        }
    }

    static func chunked(_ body: String) -> String {
        let bytes = Array(body.utf8)
        var text = ""
        for start in stride(from: 0, to: bytes.count, by: 65536) {
            let piece = bytes[start..<min(start + 65536, bytes.count)]
            text += String(piece.count, radix: 16) + "\r\n" + String(decoding: piece, as: UTF8.self) + "\r\n"
        }
        return text + "0\r\n\r\n"
    }
}
