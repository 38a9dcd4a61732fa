import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaPostgres
import TabulaTestSupport
import Testing

@testable import TabulaService

/// Reads the whole feed after `after`, `limit` entries at a time, following `next`; again
/// until it holds `atLeast` entries, for up to 10 seconds. On PostgreSQL an entry is read
/// only once the transactions begun before it ended, and other tests' transactions on the
/// shared cluster, on a loaded machine, can be slow to.
func readWholeFeed(port: UInt16, after: String? = nil, limit: Int = 1000, atLeast: Int = 0) throws -> (entries: [JSONObject], next: String) {
    let deadline = Date().addingTimeInterval(10)
    while true {
        let read = try readFeedOnce(port: port, after: after, limit: limit)
        if read.entries.count >= atLeast || Date() > deadline { return read }
        usleep(50_000)
    }
}

private func readFeedOnce(port: UInt16, after: String?, limit: Int) throws -> (entries: [JSONObject], next: String) {
    var entries: [JSONObject] = []
    var cursor = after
    while true {
        let query = "limit=\(limit)" + (cursor.map { "&after=\($0)" } ?? "")
        let response = try BackendWriteTests.request(port, "GET", "/v1/feed?\(query)", headers: [BackendAPITests.authorization])
        guard response.status == 200, let body = response.json.objectValue, let page = body["entries"]?.arrayValue,
            let next = body["next"]?.stringValue
        else { throw ServerProcessError("feed: \(response.status) \(response.bodyText)") }
        entries += page.compactMap(\.objectValue)
        if page.isEmpty || next == cursor { return (entries, next) }
        cursor = next
    }
}

/// The feed of committed changes (`GET /v1/feed`), on every store.
@Suite struct FeedTests {
    static let authorization = BackendAPITests.authorization

    func server(_ factory: StoreFactory) throws -> APITestServer {
        let catalogue = try APITestServer.fixtures()
        return try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(BackendAPITests.key)
        }
    }

    func feed(_ api: APITestServer, _ query: String = "") throws -> RawHTTPResponse {
        try api.send("GET", "/v1/feed" + query, headers: [Self.authorization])
    }

    /// One entry per committed change, in the change's order, with what it was; refusals,
    /// changes of nothing and reads add none.
    @Test(arguments: StoreKind.allCases)
    func everyCommittedChangeHasOneEntry(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let created = try api.send("POST", "/v1/sessions", headers: [Self.authorization], json: #"{"subject": "user-7", "state": {"wifi": false}}"#)
        let body = try #require(created.json.objectValue)
        let token = try #require(body["session"]?.stringValue)
        let id = try #require(body["id"]?.stringValue)
        // A client's event that changes the state, one that does not, and refused ones.
        let switched = try api.send("POST", "/v1/screens/settings/switch", session: token, json: #"{"row": "wifi", "isOn": true, "eventId": "e-1"}"#)
        #expect(switched.status == 200)
        #expect(try api.send("POST", "/v1/screens/settings/switch", session: token, json: #"{"row": "wifi", "isOn": true}"#).status == 200)
        #expect(try api.send("POST", "/v1/screens/settings/selection", session: token, json: #"{"row": "details"}"#).status == 200)
        #expect(try api.send("POST", "/v1/screens/settings/selection", session: token, json: #"{"row": "version"}"#).status == 422)
        _ = try api.send("GET", "/v1/screens/settings", session: token)
        // The backend: a patch, a refused one, one that changes nothing, then the end.
        let patch = try api.send(
            "PATCH", "/v1/sessions/\(id)/state", headers: [Self.authorization, #"If-Match: "1""#], json: #"{"bluetooth": true}"#,
            contentType: BackendWriteTests.merge)
        #expect(patch.status == 200)
        let stale = try api.send(
            "PATCH", "/v1/sessions/\(id)/state", headers: [Self.authorization, #"If-Match: "1""#], json: #"{"wifi": false}"#,
            contentType: BackendWriteTests.merge)
        #expect(stale.status == 412)
        // Every other refusal of a write adds nothing either.
        let refusals: [(status: Int, headers: [String], body: String, type: String)] = [
            (428, [], #"{"wifi": false}"#, BackendWriteTests.merge),
            (409, [#"If-Match: "2""#], #"[{"op": "test", "path": "/wifi", "value": false}]"#, BackendWriteTests.jsonPatch),
            (422, [#"If-Match: "2""#], #"[{"op": "remove", "path": "/nothing"}]"#, BackendWriteTests.jsonPatch),
            (422, [#"If-Match: "2""#], #"{"wifi": "yes"}"#, BackendWriteTests.merge),
            (415, [#"If-Match: "2""#], #"{"wifi": false}"#, "text/plain"),
        ]
        for refusal in refusals {
            let refused = try api.send(
                "PATCH", "/v1/sessions/\(id)/state", headers: [Self.authorization] + refusal.headers, json: refusal.body, contentType: refusal.type)
            #expect(refused.status == refusal.status, "\(refusal.body): \(refused.bodyText)")
        }
        let same = try api.send(
            "PATCH", "/v1/sessions/\(id)/state", headers: [Self.authorization, #"If-Match: "2""#], json: #"{"bluetooth": true}"#,
            contentType: BackendWriteTests.merge)
        #expect(same.bodyText == #"{"fromRevision":2,"toRevision":2}"#)
        let other = try api.newSession()
        #expect(try api.send("DELETE", "/v1/sessions/\(id)", headers: [Self.authorization]).status == 204)

        let (entries, next) = try readWholeFeed(port: api.port, atLeast: 5)
        #expect(entries.count == 5, "\(entries)")
        guard entries.count == 5 else { return }
        let summary = entries.map { "\($0["cause"]?.stringValue ?? "?") \($0["revision"]?.intValue ?? -1)" }
        #expect(summary == ["created 0", "event 1", "patch 2", "created 0", "deleted 2"])
        for entry in entries where entry["session"]?.stringValue == id {
            #expect(entry["subject"]?.stringValue == "user-7")
        }
        #expect(entries[3]["subject"] == .null && entries[3]["session"]?.stringValue != id)
        #expect(entries[0]["changedKeys"]?.arrayValue?.compactMap(\.stringValue) == (try APITestServer.fixtures()).initialState.values.keys.sorted())
        #expect(entries[0]["event"] == .null)
        #expect(entries[1]["changedKeys"] == .array([.string("wifi")]))
        #expect(
            entries[1]["event"]
                == (try JSONParser().parse(Array(#"{"eventId": "e-1", "isOn": true, "kind": "switch", "row": "wifi", "screen": "settings"}"#.utf8))))
        #expect(entries[2]["changedKeys"] == .array([.string("bluetooth")]) && entries[2]["event"] == .null)
        #expect(entries[4]["changedKeys"] == .array([]) && entries[4]["event"] == .null)
        let cursors = entries.compactMap { $0["cursor"]?.stringValue }
        #expect(cursors == cursors.sorted() && Set(cursors).count == cursors.count && cursors.last == next)
        for entry in entries {
            let at = try #require(entry["at"]?.stringValue)
            #expect(at.hasSuffix("Z") && at.count == 24, "\(at)")
        }
        // Page by page, the same entries; after the last, none, and `next` stays.
        let paged = try readWholeFeed(port: api.port, limit: 2, atLeast: 5)
        #expect(paged.entries == entries && paged.next == next)
        let atEnd = try #require(try feed(api, "?after=\(next)").json.objectValue)
        #expect(atEnd["entries"] == .array([]) && atEnd["next"]?.stringValue == next)
        let afterTwo = try #require(try feed(api, "?after=\(cursors[1])&limit=2").json.objectValue)
        #expect(afterTwo["entries"]?.arrayValue?.compactMap { $0.objectValue?["cursor"]?.stringValue } == Array(cursors[2...3]))
        _ = other
    }

    /// The backend key guards the feed, and queries that mean nothing are 400.
    @Test func keysAndQueriesAreChecked() throws {
        let disabled = try APITestServer()
        #expect(try disabled.send("GET", "/v1/feed", headers: [Self.authorization]).status == 403)
        let api = try server(try StoreFactory(.memory))
        #expect(try api.send("GET", "/v1/feed").status == 401)
        #expect(try api.send("GET", "/v1/feed", headers: ["Authorization: Bearer wrong-key-0000"]).status == 401)
        let empty = try #require(try feed(api).json.objectValue)
        #expect(empty["entries"] == .array([]) && empty["next"]?.stringValue == String(repeating: "0", count: 32))
        for query in [
            "?after=", "?after=xyz", "?after=" + String(repeating: "0", count: 31), "?after=" + String(repeating: "F", count: 32), "?limit=0",
            "?limit=1001", "?limit=-1", "?limit=ten", "?limit=", "?limit=1e2",
            // Given twice, even with one value: refused, not one of them picked.
            "?limit=5&limit=5", "?after=\(String(repeating: "0", count: 32))&limit=5&after=\(String(repeating: "0", count: 32))",
        ] {
            let response = try feed(api, query)
            #expect(response.status == 400 && response.problemType == "invalid-query", "\(query): \(response.status)")
        }
        #expect(try feed(api, "?limit=1000").status == 200)
    }

    /// A cursor this feed did not give (from another store, or from before a restore or a
    /// restart of the memory store) is past its newest entry: 410, so that the backend reads
    /// its sessions again instead of silently missing what sorts before its cursor.
    @Test(arguments: StoreKind.allCases)
    func aCursorPastTheNewestEntryIsExpired(_ kind: StoreKind) throws {
        let api = try server(try StoreFactory(kind))
        defer { api.store.close() }
        let empty = try feed(api, "?after=" + String(repeating: "0", count: 31) + "1")
        #expect(empty.status == 410 && empty.problemType == "feed-expired")
        _ = try api.newSession()
        let read = try readWholeFeed(port: api.port, atLeast: 1)
        #expect(try feed(api, "?after=\(read.next)").status == 200)
        // The other stores count in the cursor's low half only: any high half is past them.
        let pastHigh = kind == .postgres ? [] : [String(repeating: "0", count: 15) + "1" + String(repeating: "0", count: 16)]
        for past in [String(repeating: "f", count: 32)] + pastHigh {
            let response = try feed(api, "?after=\(past)")
            #expect(response.status == 410 && response.problemType == "feed-expired", "\(past)")
            #expect(response.json.objectValue?["oldest"]?.stringValue == String(repeating: "0", count: 32))
        }
    }

    /// A PostgreSQL database whose transaction ids are behind its feed (restored from a dump,
    /// or a standby that lost transactions) gets an empty feed at start: what was read before
    /// is expired, and new entries are read in order. Its feed is ahead by its newest entry,
    /// or, when retention had emptied it, by the place of the newest entry removed.
    @Test(arguments: [
        // As after a restore: an entry whose transaction id the database has not reached.
        [
            """
            INSERT INTO feed(xid, session_id, revision, cause, changed_keys, time_ms)
            VALUES ('900000000000', 's_aaaaaaaaaaaaaaaaaaaa', 0, 'created', '\\x5b5d', 0)
            """
        ],
        ["DELETE FROM feed", "UPDATE feed_pruned SET xid = '900000000000', seq = 1"],
    ])
    func postgresResetsAFeedAheadOfItsTransactionIDs(restore: [String]) throws {
        let factory = try StoreFactory(.postgres)
        var api = try server(factory)
        _ = try api.newSession()
        let before = try readWholeFeed(port: api.port, atLeast: 1)
        api.store.close()
        let connection = try PostgresConnection(url: try #require(factory.databaseURL))
        for statement in restore { try connection.execute(statement) }
        api = try server(factory)
        defer { api.store.close() }
        #expect(try feed(api, "?after=\(before.next)").status == 410)
        _ = try api.newSession()
        let after = try readWholeFeed(port: api.port, atLeast: 1)
        #expect(after.entries.count == 1 && after.entries.first?["cause"]?.stringValue == "created")
    }

    /// Entries older than the retention are removed; reading after one of them is 410 with
    /// the place to go on from, and reading from there misses nothing kept.
    @Test(arguments: StoreKind.allCases)
    func entriesPastTheRetentionAreGoneWith410(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let clock = Locked<Milliseconds>(1_800_000_000_000)
        factory.clock = { clock.withLock { $0 } }
        factory.settings.feedRetentionSeconds = 60
        let api = try server(factory)
        defer { api.store.close() }
        _ = try api.newSession()
        _ = try api.newSession()
        let first = try readWholeFeed(port: api.port, atLeast: 2)
        #expect(first.entries.count == 2)
        clock.withLock { $0 += 61_000 }
        _ = try api.newSession()
        let early = try #require(first.entries.first?["cursor"]?.stringValue)
        // PostgreSQL removes only entries every transaction begun before has ended: other
        // tests' transactions on the shared cluster can hold a pass back.
        var expired = try feed(api, "?after=\(early)")
        let deadline = Date().addingTimeInterval(10)
        while expired.status != 410 && Date() < deadline {
            #expect(try wait { api.store.removeExpired(completion: $0) } == 0)
            expired = try feed(api, "?after=\(early)")
            if expired.status != 410 { usleep(50_000) }
        }
        #expect(expired.status == 410 && expired.problemType == "feed-expired")
        let oldest = try #require(expired.json.objectValue?["oldest"]?.stringValue)
        #expect(oldest == first.next)
        let kept = try readWholeFeed(port: api.port, atLeast: 1)
        #expect(kept.entries.count == 1 && kept.entries.first?["cursor"]?.stringValue ?? "" > oldest)
        #expect(try readWholeFeed(port: api.port, after: oldest).entries == kept.entries)
        // The oldest entry's own cursor (the last removed one) still reads on.
        #expect(try feed(api, "?after=\(first.next)").status == 200)
        // Once everything is past the retention, a new entry still comes after every
        // cursor given before.
        clock.withLock { $0 += 61_000 }
        #expect(try wait { api.store.removeExpired(completion: $0) } == 0)
        _ = try api.newSession()
        let newest = try readWholeFeed(port: api.port, after: kept.next, atLeast: 1)
        #expect(newest.entries.count == 1 && newest.next > kept.next)
    }

    /// Cursors survive a restart, and entries keep their order after it.
    @Test(arguments: [StoreKind.sqlite, .postgres])
    func cursorsSurviveARestart(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        var api = try server(factory)
        _ = try api.newSession()
        let before = try readWholeFeed(port: api.port, atLeast: 1)
        api.store.close()
        api = try server(factory)
        defer { api.store.close() }
        _ = try api.newSession()
        let after = try readWholeFeed(port: api.port, after: before.next, atLeast: 1)
        #expect(after.entries.count == 1 && (after.entries.first?["cursor"]?.stringValue ?? "") > before.next)
        #expect(try readWholeFeed(port: api.port, atLeast: 2).entries.count == 2)
    }

    /// The memory store keeps a bounded number of entries: a reader that fell behind the
    /// oldest kept is told, as after retention.
    @Test func theMemoryStoreKeepsABoundedFeed() throws {
        let store = MemorySessionStore(feedCapacity: 3)
        for index in 0..<5 {
            try wait {
                store.createSession(
                    NewSession(token: "BOUNDED\(index)" + String(repeating: "b", count: 24), id: SessionID.make(), subject: nil, state: SessionState()),
                    completion: $0)
            }
        }
        guard case .entries(let kept, let next) = try wait({ store.readFeed(after: nil, limit: 10, completion: $0) }) else {
            Issue.record("the feed expired without an after")
            return
        }
        #expect(kept.map(\.cursor.low) == [3, 4, 5] && next.low == 5)
        let run = next.high
        #expect(try wait { store.readFeed(after: FeedCursor(high: run, low: 1), limit: 10, completion: $0) } == .expired(oldest: FeedCursor(high: run, low: 2)))
        #expect(
            try wait { store.readFeed(after: FeedCursor(high: run, low: 3), limit: 1, completion: $0) } == .entries(Array(kept[1...1]), next: kept[1].cursor))
    }

    /// A cursor from before a restart of the memory store (another store: its feed began
    /// again) is expired even once the new feed holds more entries than the old one did; it
    /// used to be taken as a place in the new feed, and its first entries were skipped.
    @Test func aMemoryCursorFromBeforeARestartIsExpired() throws {
        func filled(_ count: Int) throws -> MemorySessionStore {
            let store = MemorySessionStore(feedCapacity: 100)
            for index in 0..<count {
                try wait {
                    store.createSession(
                        NewSession(token: "RESTART\(index)" + String(repeating: "r", count: 25), id: SessionID.make(), subject: nil, state: SessionState()),
                        completion: $0)
                }
            }
            return store
        }
        let first = try filled(3)
        guard case .entries(_, let before) = try wait({ first.readFeed(after: nil, limit: 10, completion: $0) }) else {
            Issue.record("the first run's feed expired without an after")
            return
        }
        let restarted = try filled(10)
        guard case .expired = try wait({ restarted.readFeed(after: before, limit: 10, completion: $0) }) else {
            Issue.record("a cursor of the run before was taken as one of this run")
            return
        }
    }

    @Test func cursorsReadBackAsWritten() {
        for cursor in [FeedCursor.start, FeedCursor(low: 1), FeedCursor(high: 7, low: .max), FeedCursor(high: .max, low: 12)] {
            #expect(FeedCursor(cursor.description) == cursor)
            #expect(cursor.description.count == 32)
        }
        #expect(FeedCursor(high: 1, low: 0) > FeedCursor(high: 0, low: .max))
        #expect(FeedCursor(high: 1, low: 0).description > FeedCursor(high: 0, low: .max).description)
    }
}
