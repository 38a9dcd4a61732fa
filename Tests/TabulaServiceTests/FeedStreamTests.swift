import Foundation
import TabulaCore
import TabulaSamples
import TabulaTestSupport
import Testing

@testable import TabulaService

/// `GET /v1/feed/stream`: the backend gets every feed entry pushed, exactly as
/// `GET /v1/feed` reads it, from any cursor, on each store and across instances.
@Suite struct FeedStreamTests {
    static let backendKey = "feed-stream-backend-key"
    static let authorization = "Authorization: Bearer \(backendKey)"

    func instance(_ factory: StoreFactory, _ catalogue: Catalogue) throws -> APITestServer {
        try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(Self.backendKey)
            configuration.streams.heartbeatSeconds = 1
        }
    }

    /// Every entry of `GET /v1/feed` after `after`, in order.
    func feed(_ api: APITestServer, after: String? = nil) throws -> [JSONValue] {
        var entries: [JSONValue] = []
        var cursor = after
        while true {
            let query = cursor.map { "?limit=1000&after=\($0)" } ?? "?limit=1000"
            let page = try api.send("GET", "/v1/feed\(query)", headers: [Self.authorization]).json.objectValue
            let found = page?["entries"]?.arrayValue ?? []
            entries += found
            guard !found.isEmpty else { return entries }
            cursor = page?["next"]?.stringValue
        }
    }

    /// Reads the stream's entries until it has `count`, within 15 seconds.
    func read(_ stream: EventStreamClient, count: Int) throws -> [(id: String, entry: JSONValue)] {
        var received: [(id: String, entry: JSONValue)] = []
        let deadline = ContinuousClock.now + .seconds(15)
        while received.count < count && ContinuousClock.now < deadline {
            guard let event = try stream.nextEvent() else { break }
            #expect(event.event == "entry" && event.dataLines == 1)
            received.append((event.id ?? "", try JSONParser().parse(Array((event.data ?? "").utf8))))
        }
        return received
    }

    func changeThings(_ apis: [APITestServer], _ random: inout SplitMix64, steps: Int) throws {
        var tokens: [(token: String, id: String)] = []
        for step in 0..<steps {
            let api = apis[step % apis.count]
            if tokens.isEmpty || random.next() % 5 == 0 {
                let created = try api.send("POST", "/v1/sessions").json.objectValue
                tokens.append((try #require(created?["session"]?.stringValue), try #require(created?["id"]?.stringValue)))
                continue
            }
            let session = tokens[Int(random.next() % UInt64(tokens.count))]
            if random.next() % 10 == 0 {
                _ = try api.send("DELETE", "/v1/sessions/\(session.id)", headers: [Self.authorization])
                tokens.removeAll { $0.id == session.id }
                continue
            }
            let screen = try Screen(jsonBytes: try api.send("GET", "/v1/screens/settings", session: session.token).body)
            guard let (event, _) = RandomEvents.pick(on: screen, &random) else { continue }
            var body = JSONObject()
            body["row"] = .string(event.rowID)
            if case .setSwitch(_, let isOn) = event { body["isOn"] = .bool(isOn) }
            _ = try api.send("POST", "/v1/screens/settings/\(event.kindName)", session: session.token, json: JSONValue.object(body).canonicalText)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theStreamSendsEveryEntryOfTheFeedOnceInOrderFromAnyCursor(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let catalogue = try APITestServer.fixtures()
        let api = try instance(factory, catalogue)
        var random = SplitMix64(seed: 5)
        // More entries than one page of the stream before it opens.
        try changeThings([api], &random, steps: 150)
        let stream = try EventStreamClient(port: api.port, path: "/v1/feed/stream", headers: [Self.authorization])
        #expect(stream.head.status == 200 && stream.head.header("Content-Type") == "text/event-stream")
        try changeThings([api], &random, steps: 60)
        let expected = try feed(api)
        let received = try read(stream, count: expected.count)
        #expect(received.map(\.entry) == expected, "\(kind): \(received.count) of \(expected.count) entries")
        #expect(received.map(\.id) == expected.map { $0.objectValue?["cursor"]?.stringValue ?? "" })
        // Resuming from an entry in the middle sends exactly the ones after it.
        let middle = received[received.count / 2].id
        let resumed = try EventStreamClient(port: api.port, path: "/v1/feed/stream", headers: [Self.authorization, "Last-Event-ID: \(middle)"])
        let rest = try feed(api, after: middle)
        #expect(try read(resumed, count: rest.count).map(\.entry) == rest)
        let after = try EventStreamClient(port: api.port, path: "/v1/feed/stream?after=\(middle)", headers: [Self.authorization])
        #expect(try read(after, count: rest.count).map(\.entry) == rest)
    }

    @Test func problemsComeBeforeTheStream() throws {
        let factory = try StoreFactory(.memory)
        let catalogue = try APITestServer.fixtures()
        let api = try instance(factory, catalogue)
        _ = try api.send("POST", "/v1/sessions")
        let cases: [([String], String, Int, String)] = [
            ([], "", 401, "unauthorized"),
            ([Self.authorization, "Last-Event-ID: not-a-cursor"], "", 400, "invalid-header"),
            ([Self.authorization], "?after=zz", 400, "invalid-query"),
            ([Self.authorization, "Last-Event-ID: \(String(repeating: "f", count: 32))"], "", 410, "feed-expired"),
        ]
        for (headers, query, status, slug) in cases {
            let answer = try api.send("GET", "/v1/feed/stream\(query)", headers: headers)
            #expect(answer.status == status && answer.problemSlug == slug, "\(headers) \(query): \(answer.status) \(answer.bodyText)")
        }
        let withKeyInQuery = try EventStreamClient(port: api.port, path: "/v1/feed/stream?key=\(Self.backendKey)")
        #expect(withKeyInQuery.head.status == 200)
        let disabled = try APITestServer()
        #expect(try disabled.send("GET", "/v1/feed/stream", headers: [Self.authorization]).status == 403)
    }

    @Test func aStreamOnOneInstanceSendsWhatTheOtherCommits() throws {
        let factory = try StoreFactory(.postgres)
        let catalogue = try APITestServer.fixtures()
        let apis = try (0..<2).map { _ in try instance(factory, catalogue) }
        var random = SplitMix64(seed: 9)
        try changeThings(apis, &random, steps: 5)
        let stream = try EventStreamClient(port: apis[1].port, path: "/v1/feed/stream", headers: [Self.authorization])
        try changeThings([apis[0]], &random, steps: 40)
        let expected = try feed(apis[0])
        #expect(try read(stream, count: expected.count).map(\.entry) == expected)
    }
}
