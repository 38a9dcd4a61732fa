import Foundation
import TabulaCore
import TabulaPlatform
import TabulaSamples
import TabulaTestSupport
import Testing

@testable import TabulaService

/// `GET /v1/screens/{id}/stream` on each store: streams that follow random events from
/// several connections and backend patches, reconnects from earlier ids, limits,
/// heartbeats, and the end of a session.
@Suite struct StreamAPITests {
    static let backendKey = "stream-test-backend-key"

    func server(_ kind: StoreKind, adjust: (inout StreamSettings) -> Void = { _ in }) throws -> (APITestServer, StoreFactory) {
        let factory = try StoreFactory(kind)
        let catalogue = try APITestServer.fixtures()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(Self.backendKey)
            configuration.streams.heartbeatSeconds = 1
            adjust(&configuration.streams)
        }
        return (api, factory)
    }

    func newSession(_ api: APITestServer) throws -> (token: String, id: String) {
        let created = try api.send("POST", "/v1/sessions").json.objectValue
        return (try #require(created?["session"]?.stringValue), try #require(created?["id"]?.stringValue))
    }

    func screen(_ api: APITestServer, _ session: String, _ id: String) throws -> Screen {
        let response = try api.send("GET", "/v1/screens/\(id)", session: session)
        #expect(response.status == 200, "\(response.bodyText)")
        return try Screen(jsonBytes: response.body)
    }

    /// Every stream's copy, after applying its events, equals the server's screen at each
    /// quiet point, whoever changed the session (clients' events on any connection, the
    /// backend's patches); and a stream reopened from any earlier id catches up exactly.
    @Test(arguments: StoreKind.allCases)
    func streamsFollowEveryChangeAndReconnectFromAnyEarlierEvent(kind: StoreKind) throws {
        // Reconnected streams stay counted until a heartbeat finds their clients gone.
        let (api, _) = try server(kind) { $0.maxStreamsPerSession = 64 }
        let session = try newSession(api)
        let screens = ["settings", "settings", "settings", "protocol-settings"]
        let streams = try screens.enumerated().map { index, screen in
            // Half the streams carry the token in the query, as EventSource must.
            index % 2 == 0
                ? try StreamClientCopy(port: api.port, screen: screen, session: session.token)
                : try StreamClientCopy(port: api.port, screen: screen, session: nil, query: "?session=\(session.token)")
        }
        for (stream, screen) in zip(streams, screens) {
            try stream.catchUp(to: try self.screen(api, session.token, screen), "the first event")
            #expect(stream.events.first == "screen")
        }
        var random = SplitMix64(seed: 42)
        for round in 0..<12 {
            for _ in 0..<(1 + Int(random.next() % 4)) {
                if random.next() % 4 == 0 {
                    try patch(api, session, &random)
                } else {
                    let screenID = random.next() % 3 == 0 ? "protocol-settings" : "settings"
                    let current = try screen(api, session.token, screenID)
                    guard let (event, _) = RandomEvents.pick(on: current, &random) else { continue }
                    var body = JSONObject()
                    body["row"] = .string(event.rowID)
                    if case .setSwitch(_, let isOn) = event { body["isOn"] = .bool(isOn) }
                    let answer = try api.send(
                        "POST", "/v1/screens/\(screenID)/\(event.kindName)", session: session.token, json: JSONValue.object(body).canonicalText)
                    #expect(answer.status == 200 || answer.status == 404 || answer.status == 422, "\(answer.status) \(answer.bodyText)")
                }
            }
            for (stream, screenID) in zip(streams, screens) {
                try stream.catchUp(to: try screen(api, session.token, screenID), "\(kind) round \(round), \(screenID)")
            }
        }
        // Reconnects from random earlier events: the first event takes that copy to the
        // current screen (or nothing is sent when it is current).
        for (stream, screenID) in zip(streams, screens) {
            let current = try screen(api, session.token, screenID)
            for _ in 0..<3 {
                guard !stream.history.isEmpty else { break }
                let earlier = stream.history[Int(random.next() % UInt64(stream.history.count))]
                let reopened = try StreamClientCopy(
                    port: api.port, screen: screenID, session: session.token, headers: ["Last-Event-ID: \(earlier.id)"], from: earlier.copy)
                try reopened.catchUp(to: current, "\(kind): reconnect from \(earlier.id)")
                #expect(!reopened.events.contains("screen"), "a copy the server can bring forward gets a change set")
            }
            // A first connection names its copy with ?since= and &definition=.
            if let first = stream.history.first, let definition = first.copy.definition {
                let reopened = try StreamClientCopy(
                    port: api.port, screen: screenID, session: session.token, query: "?since=\(first.copy.revision)&definition=\(definition)",
                    from: first.copy)
                try reopened.catchUp(to: current, "\(kind): since \(first.copy.revision)")
                #expect(!reopened.events.contains("screen"))
            }
        }
    }

    /// A backend patch of one state key the settings screen shows, under If-Match.
    private func patch(_ api: APITestServer, _ session: (token: String, id: String), _ random: inout SplitMix64) throws {
        for _ in 0..<5 {
            let record = try api.send("GET", "/v1/sessions/\(session.id)", headers: ["Authorization: Bearer \(Self.backendKey)"])
            let revision = try #require(record.json.objectValue?["revision"]?.intValue)
            let answer = try api.send(
                "PATCH", "/v1/sessions/\(session.id)/state",
                headers: ["Authorization: Bearer \(Self.backendKey)", "If-Match: \"\(revision)\""],
                json: #"{"bluetooth": \#(random.next() % 2 == 0)}"#, contentType: "application/merge-patch+json")
            if answer.status == 412 { continue }
            #expect(answer.status == 200, "\(answer.status) \(answer.bodyText)")
            return
        }
    }

    /// A deployment adds a row: a client whose stream ended with the old instance reconnects
    /// to the new one from its last event, of the old definition, and gets one change set
    /// that inserts the row into its copy.
    @Test(arguments: StoreKind.allCases)
    func aStreamReopenedAfterADeploymentCatchesUpFromTheOldDefinition(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        var deployment = try Deployment(factory, try APITestServer.fixtures())
        defer { deployment.close() }
        let session = try deployment.old.newSession()
        let stream = try StreamClientCopy(port: deployment.old.port, screen: "settings", session: session)
        try stream.catchUp(to: try screen(deployment.old, session, "settings"), "\(kind): opening")
        _ = try deployment.old.send("POST", "/v1/screens/settings/switch", session: session, json: #"{"row": "bluetooth", "isOn": true}"#)
        try stream.catchUp(to: try screen(deployment.old, session, "settings"), "\(kind): the switch")
        let lastEventID = try #require(stream.lastEventID)
        try deployment.deploy(try DeploymentTests.fixturesWithAirplaneMode())
        let current = try screen(deployment.new, session, "settings")
        #expect(current.sections.first?.rows.first?.id == "airplane" && current.definition != stream.copy?.definition)
        let reopened = try StreamClientCopy(
            port: deployment.new.port, screen: "settings", session: session, headers: ["Last-Event-ID: \(lastEventID)"], from: stream.copy)
        try reopened.catchUp(to: current, "\(kind): after the deployment")
        #expect(reopened.events == ["changes"], "\(kind): \(reopened.events)")
        #expect(reopened.copy == current)
    }

    @Test func aCopyTheServerCannotBringForwardGetsTheWholeScreen() throws {
        let (api, _) = try server(.memory)
        let session = try newSession(api)
        for lastEventID in ["unknown-definition:0", "no-colon", "settings:-1"] {
            let stream = try StreamClientCopy(port: api.port, screen: "settings", session: session.token, headers: ["Last-Event-ID: \(lastEventID)"])
            try stream.catchUp(to: try screen(api, session.token, "settings"), lastEventID)
            #expect(stream.events == ["screen"], "\(lastEventID)")
        }
        // A revision beyond the session's.
        let ahead = try StreamClientCopy(port: api.port, screen: "settings", session: session.token, query: "?since=99")
        try ahead.catchUp(to: try screen(api, session.token, "settings"), "since 99")
        #expect(ahead.events == ["screen"])
    }

    @Test func theStreamOpensWithItsHeadersAndRetryThenSendsHeartbeats() throws {
        let (api, _) = try server(.memory)
        let session = try newSession(api)
        let client = try EventStreamClient(port: api.port, path: "/v1/screens/settings/stream", headers: ["X-Session: \(session.token)"])
        #expect(client.head.status == 200)
        #expect(client.head.header("Content-Type") == "text/event-stream")
        #expect(client.head.header("Cache-Control") == "no-store")
        #expect(client.head.header("X-Accel-Buffering") == "no")
        let first = try #require(try client.next())
        #expect(first.retry == 3000)
        let screen = try #require(try client.next())
        let definition = try self.screen(api, session.token, "settings").definition ?? ""
        #expect(screen.event == "screen" && screen.id == "\(definition):0")
        // With --stream-heartbeat 1s, comments come about every second.
        let started = ContinuousClock.now
        var heartbeats = 0
        while heartbeats < 2, let block = try client.next() {
            if block.isHeartbeat { heartbeats += 1 }
        }
        #expect(heartbeats == 2 && ContinuousClock.now - started < .seconds(4))
    }

    @Test func problemsComeBeforeTheStreamStarts() throws {
        let (api, _) = try server(.memory)
        let session = try newSession(api)
        let cases: [(String, [String], Int, String)] = [
            ("/v1/screens/settings/stream", [], 401, "missing-session"),
            ("/v1/screens/settings/stream?session=nope", [], 401, "unknown-session"),
            ("/v1/screens/settings/stream", ["X-Session: s3cr3tthatdoesnotexistxxxxxxxxxx"], 401, "unknown-session"),
            ("/v1/screens/nowhere/stream", ["X-Session: \(session.token)"], 404, "unknown-screen"),
            ("/v1/screens/settings/stream?since=x", ["X-Session: \(session.token)"], 400, "invalid-query"),
            ("/v1/screens/settings/stream?definition=abc", ["X-Session: \(session.token)"], 400, "invalid-query"),
            ("/v1/screens/settings/stream?session=\(session.token)&session=\(session.token)", [], 400, "invalid-query"),
            ("/v1/screens/settings/stream?since=0&since=0", ["X-Session: \(session.token)"], 400, "invalid-query"),
        ]
        for (path, headers, status, slug) in cases {
            let answer = try api.send("GET", path, headers: headers)
            #expect(answer.status == status && answer.problemSlug == slug, "\(path): \(answer.status) \(answer.bodyText)")
            #expect(answer.header("Content-Type") == "application/problem+json")
        }
    }

    @Test func streamsBeyondTheLimitsGet429WithRetryAfter() throws {
        let (api, _) = try server(.memory) { settings in
            settings.maxStreams = 3
            settings.maxStreamsPerSession = 2
        }
        let first = try newSession(api)
        let second = try newSession(api)
        let open = try (0..<2).map { _ in try StreamClientCopy(port: api.port, screen: "settings", session: first.token) }
        let overSession = try api.send("GET", "/v1/screens/settings/stream", session: first.token)
        #expect(overSession.status == 429 && overSession.problemSlug == "too-many-streams" && overSession.header("Retry-After") != nil)
        var third: StreamClientCopy? = try StreamClientCopy(port: api.port, screen: "settings", session: second.token)
        let overAll = try api.send("GET", "/v1/screens/settings/stream", session: second.token)
        #expect(overAll.status == 429 && overAll.problemSlug == "too-many-streams" && overAll.header("Retry-After") != nil)
        #expect(try api.metrics(showing: "tabula_open_streams 3").contains("tabula_open_streams 3"))
        // A stream whose client left frees its place (found at a heartbeat).
        third = nil
        let deadline = ContinuousClock.now + .seconds(6)
        var reopened = 0
        while ContinuousClock.now < deadline {
            let client = try EventStreamClient(port: api.port, path: "/v1/screens/settings/stream", headers: ["X-Session: \(second.token)"])
            reopened = client.head.status
            if reopened == 200 { break }
            usleep(200_000)
        }
        #expect(reopened == 200)
        _ = (open, third)
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func aDeletedOrExpiredSessionEndsItsStreamsWithGone(kind: StoreKind) throws {
        let (api, factory) = try server(kind) { $0.recheckSeconds = 1 }
        _ = factory
        let deleted = try newSession(api)
        let stream = try StreamClientCopy(port: api.port, screen: "settings", session: deleted.token)
        try stream.catchUp(to: try screen(api, deleted.token, "settings"), "opening")
        let answer = try api.send("DELETE", "/v1/sessions/\(deleted.id)", headers: ["Authorization: Bearer \(Self.backendKey)"])
        #expect(answer.status == 204)
        while try stream.readOne() {}
        #expect(stream.gone && stream.client.ended)
        let again = try api.send("GET", "/v1/screens/settings/stream", session: deleted.token)
        #expect(again.status == 401 && again.problemSlug == "unknown-session")
        // The ended streams no longer count against the limits.
        #expect(try api.metrics(showing: "tabula_open_streams 0").contains("tabula_open_streams 0"))
    }

    /// Read again at the recheck interval, on its own clock: a heartbeat of an hour does not
    /// keep an expired session's streams open for an hour.
    @Test func anExpiredSessionEndsItsStreamsWithGone() throws {
        let factory = try StoreFactory(.memory)
        factory.settings.sessionTTLSeconds = 1
        // The store's clock, moved on by the test instead of waiting out the TTL.
        let later = Locked<Milliseconds>(0)
        factory.clock = { unixMilliseconds() + later.withLock { $0 } }
        let catalogue = try APITestServer.fixtures()
        let store = try factory.open(catalogue)
        let api = try APITestServer(catalogue: catalogue, store: store) { configuration in
            configuration.streams.heartbeatSeconds = 3600
            configuration.streams.recheckSeconds = 1
        }
        let session = try newSession(api)
        let stream = try StreamClientCopy(port: api.port, screen: "settings", session: session.token)
        try stream.catchUp(to: try screen(api, session.token, "settings"), "opening")
        later.withLock { $0 = 2_100 }
        let removed = try wait { store.removeExpired(completion: $0) }
        #expect(removed == 1)
        while try stream.readOne() {}
        #expect(stream.gone)
    }
}

/// `?session=` and `?key=` stand in for headers a browser's EventSource cannot send; the
/// access log shows neither.
@Suite struct StreamQueryCredentialTests {
    @Test func aStreamTakesItsSessionAndKeyFromTheQueryAndTheLogShowsNeither() throws {
        let key = "stream-query-api-key-\(UInt32.random(in: 0...UInt32.max))"
        let server = try ServerProcess(arguments: ["--store", "memory", "--api-key", key])
        let created = try RawHTTPConnection(port: server.port)
        try created.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nContent-Length: 0\r\n\r\n")
        let token = try #require(created.readResponse().json.objectValue?["session"]?.stringValue)
        let withoutKey = try EventStreamClient(port: server.port, path: "/v1/screens/settings/stream?session=\(token)")
        #expect(withoutKey.head.status == 401)
        let wrongKey = try EventStreamClient(port: server.port, path: "/v1/screens/settings/stream?session=\(token)&key=nope")
        #expect(wrongKey.head.status == 401)
        // A key given twice, like a repeated Authorization header, presents none.
        let twoKeys = try EventStreamClient(port: server.port, path: "/v1/screens/settings/stream?session=\(token)&key=\(key)&key=\(key)")
        #expect(twoKeys.head.status == 401)
        let stream = try EventStreamClient(port: server.port, path: "/v1/screens/settings/stream?session=\(token)&key=\(key)")
        #expect(stream.head.status == 200)
        #expect(try stream.nextEvent()?.event == "screen")
        // The key in the query opens streams only.
        let screen = try RawHTTPConnection(port: server.port)
        try screen.send(getRequest("/v1/screens/settings?key=\(key)"))
        #expect(try screen.readResponse().status == 401)
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 10) == 0)
        let log = server.log
        #expect(log.contains("/v1/screens/settings/stream"), "the stream's request is logged")
        #expect(!log.contains(token) && !log.contains(key), "a credential from the query reached the log")
    }
}
