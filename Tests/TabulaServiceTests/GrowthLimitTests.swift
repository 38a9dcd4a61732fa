import Foundation
import TabulaCore
import TabulaPlatform
import TabulaPostgres
import TabulaSQLite
import TabulaTestSupport
import Testing

@testable import TabulaService

/// What anonymous clients can make the service keep is bounded (docs/security.md, "Limits"):
/// new sessions per client address, a client context's size, the history and the stored
/// answers of a session, and the store's cache of states, each counted in
/// `tabula_limit_reached_total{limit}`.
@Suite struct GrowthLimitTests {
    static let backendKey = "growth-limit-backend-key"

    @Test func aBucketAdmitsABurstThenTheRate() {
        let rate = NewSessionRate(perMinute: 600)
        let start: Int64 = 1_000_000_000
        for _ in 0..<600 { #expect(rate.admit("198.51.100.1", now: start) == nil) }
        let retryAfter = rate.admit("198.51.100.1", now: start)
        #expect(retryAfter == 1)
        // Another address has its own bucket; a tenth of a second later one more fits.
        #expect(rate.admit("198.51.100.2", now: start) == nil)
        #expect(rate.admit("198.51.100.1", now: start + 100_000_000) == nil)
        #expect(rate.admit("198.51.100.1", now: start + 100_000_000) != nil)
        #expect(NewSessionRate(perMinute: 0).admit("x", now: start) == nil)
    }

    /// An IPv6 host has a /64 to take addresses from: one address a request used to get a
    /// bucket each, so no limit held. A /64 is one bucket; an IPv4 address written as IPv6
    /// is the IPv4 address's.
    @Test func anIPv6ClientsSlash64IsOneBucket() {
        let rate = NewSessionRate(perMinute: 3)
        let start: Int64 = 1_000_000_000
        for host in ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:DB8:1:2:ffff:ffff:ffff:ffff"] {
            #expect(rate.admit(host, now: start) == nil, "\(host)")
        }
        #expect(rate.admit("2001:db8:1:2::3", now: start) != nil)
        #expect(rate.admit("2001:db8:1:3::1", now: start) == nil, "another /64")
        for _ in 0..<3 { #expect(rate.admit("192.0.2.7", now: start) == nil) }
        #expect(rate.admit("::ffff:192.0.2.7", now: start) != nil)
        #expect(NewSessionRate.bucket(of: "2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(NewSessionRate.bucket(of: "::FFFF:192.0.2.7") == "192.0.2.7")
    }

    /// 1,381 new sessions a second came from one connection; now an address gets its
    /// minute's worth, then 429 with Retry-After. The backend's key lifts the limit, and
    /// behind a trusted proxy the limit is the forwarded client's.
    @Test func newSessionsPerClientAddressAreLimited() throws {
        let api = try APITestServer {
            $0.newSessionsPerMinute = 5
            $0.backendKey = APIKey(Self.backendKey)
            $0.trustedProxies = try! TrustedProxies(["127.0.0.9", "10.0.0.0/8"])
        }
        for _ in 0..<5 { #expect(try api.send("POST", "/v1/sessions").status == 201) }
        let refused = try api.send("POST", "/v1/sessions")
        #expect(refused.status == 429 && refused.problemSlug == "too-many-sessions", "\(refused.bodyText)")
        #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
        let backend = try api.send("POST", "/v1/sessions", headers: ["Authorization: Bearer \(Self.backendKey)"])
        #expect(backend.status == 201)
        #expect(try api.send("POST", "/v1/sessions", from: "127.0.0.2").status == 201)
        // An untrusted peer's X-Forwarded-For is its own claim: it counts for the peer.
        for _ in 0..<4 { #expect(try api.send("POST", "/v1/sessions", headers: ["X-Forwarded-For: 203.0.113.1"], from: "127.0.0.3").status == 201) }
        #expect(try api.send("POST", "/v1/sessions", headers: ["X-Forwarded-For: 203.0.113.2"], from: "127.0.0.3").status == 201)
        #expect(try api.send("POST", "/v1/sessions", headers: ["X-Forwarded-For: 203.0.113.3"], from: "127.0.0.3").status == 429)
        // Through a trusted proxy, each forwarded client has its own bucket; what the client
        // sent itself before the proxy's entry does not count.
        for index in 0..<5 {
            let forwarded = try api.send("POST", "/v1/sessions", headers: ["X-Forwarded-For: 6.6.6.6, 203.0.113.50, 10.1.2.3"], from: "127.0.0.9")
            #expect(forwarded.status == 201, "\(index)")
        }
        #expect(try api.send("POST", "/v1/sessions", headers: ["X-Forwarded-For: 7.7.7.7, 203.0.113.50"], from: "127.0.0.9").status == 429)
        #expect(try api.send("POST", "/v1/sessions", headers: ["X-Forwarded-For: 203.0.113.51"], from: "127.0.0.9").status == 201)
        // A forwarded entry with a port is its address: it used to be unreadable, and every
        // client behind the proxy counted as the proxy.
        #expect(try api.send("POST", "/v1/sessions", headers: ["X-Forwarded-For: 203.0.113.50:5678"], from: "127.0.0.9").status == 429)
        let metric = #"tabula_limit_reached_total{limit="new_sessions"} 4"#
        #expect(try api.metrics(showing: metric).contains(metric))
    }

    /// Over the limit, the backend's key makes the difference between 201 and 429; a 429
    /// came at once to any other key, so the backend key could be guessed at full speed once
    /// an address had used its minute. A request that presents a key waits the refused key's
    /// pause; one that presents none does not.
    @Test func aGuessedBackendKeyOverTheLimitWaitsThePause() throws {
        let api = try APITestServer {
            $0.newSessionsPerMinute = 1
            $0.backendKey = APIKey(Self.backendKey)
            $0.keyRefusalPauseMilliseconds = 1000
        }
        #expect(try api.send("POST", "/v1/sessions").status == 201)
        var started = ContinuousClock.now
        let plain = try api.send("POST", "/v1/sessions")
        #expect(plain.status == 429 && ContinuousClock.now - started < .milliseconds(900))
        started = ContinuousClock.now
        let guess = try api.send("POST", "/v1/sessions", headers: ["Authorization: Bearer not-the-backend-key-000"])
        #expect(guess.status == 429 && guess.problemSlug == "too-many-sessions", "\(guess.bodyText)")
        #expect(ContinuousClock.now - started >= .milliseconds(1000))
        started = ContinuousClock.now
        let backend = try api.send("POST", "/v1/sessions", headers: ["Authorization: Bearer \(Self.backendKey)"])
        #expect(backend.status == 201 && ContinuousClock.now - started < .milliseconds(900))

        // With an API key, a client over the limit presents that key: it is refused at once.
        let apiKey = "client-api-key-0123456789"
        let keyed = try APITestServer {
            $0.newSessionsPerMinute = 1
            $0.apiKey = APIKey(apiKey)
            $0.backendKey = APIKey(Self.backendKey)
            $0.keyRefusalPauseMilliseconds = 1000
        }
        #expect(try keyed.send("POST", "/v1/sessions", headers: ["Authorization: Bearer \(apiKey)"]).status == 201)
        started = ContinuousClock.now
        let client = try keyed.send("POST", "/v1/sessions", headers: ["Authorization: Bearer \(apiKey)"])
        #expect(client.status == 429 && ContinuousClock.now - started < .milliseconds(900))
    }

    @Test func trustedProxiesReadAddressesAndRanges() throws {
        let proxies = try TrustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"])
        #expect(proxies.trusts("127.0.0.1") && !proxies.trusts("127.0.0.2"))
        #expect(proxies.trusts("10.200.3.4") && !proxies.trusts("11.0.0.1"))
        #expect(proxies.trusts("fd12::1") && !proxies.trusts("fe80::1"))
        // An IPv4 proxy written as IPv6 is in its IPv4 network; and IPv6 networks written
        // for IPv4 peers (before addresses were read so) still hold them.
        #expect(proxies.trusts("::ffff:10.1.2.3") && !proxies.trusts("::ffff:11.1.2.3"))
        let mapped = try TrustedProxies(["::ffff:10.0.0.0/104"])
        #expect(mapped.trusts("10.9.8.7") && mapped.trusts("::ffff:10.9.8.7") && !mapped.trusts("11.9.8.7"))
        let everyone = try TrustedProxies(["::/0"])
        #expect(everyone.trusts("192.0.2.1") && everyone.trusts("2001:db8::1"))
        // Entries with a port or in brackets, as some load balancers write them.
        #expect(TrustedProxies.withoutPort("203.0.113.5:5678") == "203.0.113.5")
        #expect(TrustedProxies.withoutPort("[2001:db8::1]:443") == "2001:db8::1")
        #expect(TrustedProxies.withoutPort("[2001:db8::1]") == "2001:db8::1")
        #expect(TrustedProxies.withoutPort("2001:db8::1") == "2001:db8::1")
        for bad in ["localhost", "10.0.0.0/33", "::/129", "1.2.3"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try TrustedProxies([bad]) }
        }
    }

    /// 256 kind names of 64 bytes made each PUT a revision of 17 KB; a context now lists at
    /// most 64 kinds of at most 64 bytes.
    @Test func aClientContextIsBounded() throws {
        let api = try APITestServer()
        let session = try api.newSession()
        let kinds = { (count: Int, length: Int) in
            "[" + (0..<count).map { "\"" + String(repeating: "k", count: length - 3) + String(format: "%03d", $0) + "\"" }.joined(separator: ",") + "]"
        }
        let fits = try api.send("PUT", "/v1/session/client", session: session, json: #"{"kinds": \#(kinds(64, 64))}"#)
        #expect(fits.status == 200, "\(fits.bodyText)")
        let tooMany = try api.send("PUT", "/v1/session/client", session: session, json: #"{"kinds": \#(kinds(65, 8))}"#)
        #expect(tooMany.status == 400 && tooMany.problemSlug == "invalid-body" && tooMany.bodyText.contains("at most 64"), "\(tooMany.bodyText)")
        let tooLong = try api.send("PUT", "/v1/session/client", session: session, json: #"{"kinds": \#(kinds(1, 65))}"#)
        #expect(tooLong.status == 400 && tooLong.problemSlug == "invalid-body")
        let created = try api.send("POST", "/v1/sessions", json: #"{"client": {"kinds": \#(kinds(65, 8))}}"#)
        #expect(created.status == 400 && created.problemSlug == "invalid-body")
        let metric = #"tabula_limit_reached_total{limit="client_kinds"} 3"#  // too many twice, too long once
        #expect(try api.metrics(showing: metric).contains(metric))
    }

    /// Client contexts of ~2 KB, one revision each, under a 16 KiB history: the oldest
    /// revisions go before --keep-revisions would drop them, catch-up from them gets the
    /// whole screen (409 stale-revision carrying it as `currentScreen`), and what is stored
    /// stays within the bound.
    @Test(arguments: StoreKind.allCases)
    func aSessionsHistoryKeepsItsBytes(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        factory.settings.maxHistoryBytes = 16 * 1024
        let store = try factory.open(try APITestServer.fixtures())
        defer { store.close() }
        let api = try APITestServer(catalogue: try APITestServer.fixtures(), store: store)
        defer { api.server.shutdown() }
        let session = try api.newSession()
        for revision in 1...40 {
            let kinds = (0..<60).map { #""kind-\#(revision)-\#($0)-padding-padding""# }.joined(separator: ",")
            let put = try api.send("PUT", "/v1/session/client", session: session, json: #"{"kinds": [\#(kinds)]}"#)
            #expect(put.status == 200, "\(put.bodyText)")
        }
        #expect(try api.revision(session) == 40)
        let old = try api.send("GET", "/v1/screens/settings/changes?since=1", session: session)
        #expect(old.status == 409 && old.problemSlug == "stale-revision", "\(old.status) \(old.bodyText)")
        let whole = try api.send("GET", "/v1/screens/settings", session: session)
        #expect(old.json.objectValue?["currentScreen"] == whole.json, "the whole screen, as GET answers it")
        #expect(old.json.objectValue?["currentRevision"] == 40)
        let detail = old.json.objectValue?["detail"]?.stringValue ?? ""
        let oldest = try #require(detail.firstMatch(of: /the oldest kept is (\d+)/).flatMap { Int($0.1) }, "\(detail)")
        #expect(oldest > 20 && oldest < 40, "oldest kept \(oldest)")
        let recent = try api.send("GET", "/v1/screens/settings/changes?since=\(oldest)", session: session)
        #expect(recent.status == 200)
        #expect(store.limitCounts[.historyBytes] >= 20)
        // What the durable stores hold is within the bound.
        let digest = testDigest(session)
        switch kind {
        case .sqlite:
            let database = try SQLiteDatabase(path: factory.directory.appendingPathComponent("tabula.sqlite").path)
            let sum = try database.prepare("SELECT SUM(length(state) + length(payload)) FROM events WHERE token_hash = ?").rows([.text(digest)])
            #expect((sum.first?.first?.integer ?? 0) <= 16 * 1024)
        case .postgres:
            let connection = try PostgresConnection(url: try #require(factory.databaseURL))
            let sum = try connection.execute(
                "SELECT SUM(octet_length(e.state) + octet_length(e.payload)), MAX(s.history_bytes) FROM events e JOIN sessions s USING (token_hash) WHERE token_hash = $1",
                [.text(digest)]
            ).rows.first
            #expect((sum?[0].integer ?? 0) <= 16 * 1024)
            #expect(sum?[0].integer == sum?[1].integer, "the session's count of its history's bytes is exact")
        case .memory:
            break
        }
        let metric = #"tabula_limit_reached_total{limit="history_bytes"}"#
        #expect(try api.metrics(showing: metric).contains(metric))
    }

    /// Every distinct eventId stored its answer for 24 h; now a session keeps its newest few.
    @Test(arguments: StoreKind.allCases)
    func aSessionKeepsItsNewestAnswers(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        factory.settings.maxAnswersPerSession = 5
        let store = try factory.open(try APITestServer.fixtures())
        defer { store.close() }
        let api = try APITestServer(catalogue: try APITestServer.fixtures(), store: store)
        defer { api.server.shutdown() }
        let session = try api.newSession()
        for index in 1...12 {
            let row = index % 2 == 0 ? "dark" : "light"
            let answer = try api.send("POST", "/v1/screens/settings/selection", session: session, json: #"{"row": "\#(row)", "eventId": "e-\#(index)"}"#)
            #expect(answer.status == 200)
        }
        func stored(_ eventID: String) throws -> Bool {
            try wait { store.read(session: .token(session), SessionRead(eventID: eventID), completion: $0) }?.answer != nil
        }
        #expect(try (1...7).filter { try stored("e-\($0)") }.isEmpty)
        #expect(try (8...12).allSatisfy { try stored("e-\($0)") })
        #expect(store.limitCounts[.eventAnswers] >= 7)
    }

    /// The cache of rendered screens is bounded by bytes: the large screens of many sessions,
    /// fetched or left by an event, keep it within its bytes.
    @Test func theScreenCacheKeepsItsBytes() throws {
        let rows = (0..<60).map { #"{"id": "r\#($0)", "kind": "subtitle", "title": "\#(String(repeating: "t", count: 200))", "subtitle": "s"}"# }
        let file = #"{"id": "inbox", "title": "Inbox", "sections": [{"id": "all", "rows": [\#(rows.joined(separator: ", "))]}]}"#
        let catalogue = try Catalogue.load([DefinitionFile(name: "inbox.json", bytes: Array(file.utf8))])
        let inbox = try #require(catalogue.screen(id: "inbox"))
        let counts = LimitCounts()
        let cache = ScreenCache(CacheBounds(entries: 50_000, bytes: 1 << 20), limitCounts: counts)
        for index in 0..<400 {
            let session = SessionKey(SessionToken.make())
            if index % 2 == 0 {
                _ = cache.renderedScreen(session: session, inbox, catalogue.initialState)
            } else {
                cache.keepForDiff(session: session, screen: render(inbox, catalogue.initialState))
            }
        }
        #expect(cache.bytes <= 1 << 20)
        #expect(cache.bytes > 1 << 19, "the cache keeps what fits")
        #expect(counts[.screenCacheBytes] > 0)
    }

    /// Both screen caches count the screens they drop in `/metrics`: the sessions' screens
    /// and each server thread's prepared answers, kept within `--screen-cache-bytes`.
    @Test(arguments: [APITestServer.Path.inProcess, .socket])
    func theScreenCachesCountWhatTheyDrop(over route: APITestServer.Path) throws {
        let api = try APITestServer(catalogue: APITestServer.fixtures(withInbox: true)) { $0.screenCacheBytes = 1 << 20 }
        let line = #"tabula_limit_reached_total{limit="screen_cache_bytes"} "#
        func dropped() throws -> Int? {
            let text = try api.send("GET", "/metrics").bodyText
            return text.split(separator: "\n").first { $0.hasPrefix(line) }.flatMap { Int($0.dropFirst(line.count)) }
        }
        #expect(try dropped() == 0)
        // Each session's inbox is some tens of kilobytes of JSON: 60 of them outgrow a mebibyte.
        for _ in 0..<60 {
            let session = try api.newSession()
            #expect(try api.send("GET", "/v1/screens/inbox", session: session, over: route).status == 200)
        }
        #expect(try dropped() ?? 0 > 0)
    }

    /// The cache of states is bounded by bytes: many large states keep it within its share.
    @Test func theStateCacheKeepsItsBytes() {
        let counts = LimitCounts()
        let cache = SessionStateCache(maxBytes: 1 << 20, limitCounts: counts)
        let big = SessionState(revision: 1, values: ["text": .scalar(.string(String(repeating: "x", count: 20_000)))])
        for _ in 0..<500 {
            let token = SessionToken.make()
            cache.put(SessionKey(token), digest: testDigest(token), big)
        }
        #expect(cache.bytes <= 1 << 20)
        #expect(counts[.stateCacheBytes] > 400)
    }
}
