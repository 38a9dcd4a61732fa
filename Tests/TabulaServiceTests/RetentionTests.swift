import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaSQLite
import TabulaTestSupport
import Testing

@testable import TabulaService

/// Retention with a clock the test moves: idle sessions go, answers outlive compaction
/// until their TTL, and schemas newer than the binary stop the start.
@Suite(.serialized) struct RetentionTests {
    final class Clock: @unchecked Sendable {
        let time = Locked<Milliseconds>(1_800_000_000_000)
        func advance(seconds: Int) { time.withLock { $0 += Milliseconds(seconds) * 1000 } }
        var now: @Sendable () -> Milliseconds { { [time] in time.withLock { $0 } } }
    }

    /// A server on a store of `kind` with the settings `adjust` makes, on a clock the test moves.
    func server(
        _ kind: StoreKind, retentionIntervalSeconds: Double = 0, _ adjust: (inout StoreSettings) -> Void
    ) throws -> (api: APITestServer, clock: Clock, factory: StoreFactory) {
        let clock = Clock()
        let factory = try StoreFactory(kind)
        factory.retentionIntervalSeconds = retentionIntervalSeconds
        adjust(&factory.settings)
        factory.clock = clock.now
        let catalogue = try flipCatalogue()
        return (try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)), clock, factory)
    }

    /// Runs a retention pass and expects it to remove `idle` alone, leaving `kept` at revision 1.
    func expectRetentionRemoves(_ idle: String, keeping kept: String, _ api: APITestServer) throws {
        let removed = try wait { api.store.removeExpired(completion: $0) }
        #expect(removed == 1)
        #expect(try api.send("GET", "/v1/screens/flip", session: idle).status == 401)
        #expect(try api.revision(kept, screen: "flip") == 1)
    }

    func event(_ api: APITestServer, _ session: String, _ json: String) throws -> RawHTTPResponse {
        try api.send("POST", "/v1/screens/flip/selection", session: session, json: json)
    }

    /// The sessions a store reports (`tabula_sessions`) follow creation, deletion and
    /// expiry, and survive a restart: SQLite counts them once at the start and then keeps
    /// the count, rather than counting the table on every scrape.
    @Test(arguments: StoreKind.allCases)
    func theSessionCountFollowsCreationDeletionAndExpiry(kind: StoreKind) throws {
        let (api, clock, factory) = try server(kind) { $0.sessionTTLSeconds = 60 }
        let open = Locked(true)
        defer {
            if open.withLock({ $0 }) { api.store.close() }
            withExtendedLifetime(factory) {}
        }
        let idle = try api.newSession()
        clock.advance(seconds: 40)
        let kept = try api.newSession()
        let created = try api.send("POST", "/v1/sessions")
        let id = try #require(created.json.objectValue?["id"]?.stringValue)
        #expect(api.store.sessionCount() == 3)
        #expect(try wait { api.store.deleteSession(id: id, completion: $0) })
        #expect(api.store.sessionCount() == 2)
        clock.advance(seconds: 30)
        #expect(try wait { api.store.removeExpired(completion: $0) } == 1)
        #expect(try api.send("GET", "/v1/screens/flip", session: idle).status == 401)
        #expect(try api.send("GET", "/v1/screens/flip", session: kept).status == 200)
        #expect(api.store.sessionCount() == 1)
        guard kind != .memory else { return }
        api.store.close()
        open.withLock { $0 = false }
        let reopened = try factory.open(try flipCatalogue())
        defer { reopened.close() }
        #expect(reopened.sessionCount() == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func answersOutliveCompactionUntilTheirTTL(kind: StoreKind) throws {
        let (api, clock, factory) = try server(kind) {
            $0.keepRevisions = 2; $0.idempotencyTTLSeconds = 60
        }
        defer { api.store.close(); withExtendedLifetime(factory) {} }  // the factory owns the store's directory
        let session = try api.newSession()
        let first = try event(api, session, #"{"row": "flip", "eventId": "first"}"#)
        for index in 0..<5 { _ = try event(api, session, #"{"row": "flip", "eventId": "later-\#(index)"}"#) }
        // Revision 1 is long compacted away, but its answer is still replayed.
        #expect(try api.send("GET", "/v1/screens/flip/changes?since=1", session: session).status == 409)
        #expect(try event(api, session, #"{"row": "flip", "eventId": "first"}"#).body == first.body)
        #expect(try api.revision(session, screen: "flip") == 6)
        clock.advance(seconds: 61)
        _ = try wait { api.store.removeExpired(completion: $0) }
        // After the TTL the id is forgotten: the same request is a new event.
        let again = try event(api, session, #"{"row": "flip", "eventId": "first"}"#)
        #expect(again.json.objectValue?["toRevision"] == 7)
    }

    /// Past its TTL an event id is forgotten even before a retention pass removes its answer.
    @Test(arguments: StoreKind.allCases)
    func anExpiredEventIDIsANewEventBeforeRetentionRuns(kind: StoreKind) throws {
        let (api, clock, factory) = try server(kind) { $0.idempotencyTTLSeconds = 60 }
        defer { api.store.close(); withExtendedLifetime(factory) {} }  // the factory owns the store's directory
        let session = try api.newSession()
        #expect(try event(api, session, #"{"row": "flip", "eventId": "first"}"#).json.objectValue?["toRevision"] == 1)
        clock.advance(seconds: 61)
        let again = try event(api, session, #"{"row": "flip", "eventId": "first"}"#)
        #expect(again.status == 200)
        #expect(again.json.objectValue?["toRevision"] == 2)
        // The new answer is the one replayed now.
        #expect(try event(api, session, #"{"row": "flip", "eventId": "first"}"#).body == again.body)
        #expect(try api.revision(session, screen: "flip") == 2)
    }

    /// Every store runs its passes by itself (`tabula serve` every minute): an idle session
    /// goes without anyone asking.
    @Test(arguments: StoreKind.allCases)
    func everyStoreRunsItsOwnRetentionPasses(kind: StoreKind) throws {
        let (api, clock, factory) = try server(kind, retentionIntervalSeconds: 0.05) { $0.sessionTTLSeconds = 10 }
        defer { api.store.close(); withExtendedLifetime(factory) {} }  // the factory owns the store's directory
        let idle = try api.newSession()
        #expect(try api.send("GET", "/v1/screens/flip", session: idle).status == 200)
        clock.advance(seconds: 11)
        // Watched through the feed: a read of the session would count as its use.
        let removed = try eventually(within: 10) {
            guard case .entries(let entries, _) = try wait({ api.store.readFeed(after: nil, limit: 10, completion: $0) }) else { return false }
            return entries.contains { $0.record.cause == .deleted }
        }
        #expect(removed)
        #expect(try api.send("GET", "/v1/screens/flip", session: idle).status == 401)
    }

    /// A session that is only read is in use: with a TTL shorter than an hour, reads still
    /// refresh its last use often enough.
    @Test(arguments: StoreKind.allCases)
    func sessionsThatAreOnlyReadStayWithAShortTTL(kind: StoreKind) throws {
        let (api, clock, factory) = try server(kind) { $0.sessionTTLSeconds = 10 }
        defer { api.store.close(); withExtendedLifetime(factory) {} }  // the factory owns the store's directory
        let (read, idle) = (try api.newSession(), try api.newSession())
        _ = try event(api, read, #"{"row": "flip"}"#)
        for _ in 0..<5 {  // 20 seconds in all, each read within the 10-second TTL of the last
            clock.advance(seconds: 4)
            #expect(try api.send("GET", "/v1/screens/flip", session: read).status == 200)
        }
        try expectRetentionRemoves(idle, keeping: read, api)
    }

    /// The server threads remember the screens they answered: a removed session's is not
    /// answered again from that memory.
    @Test(arguments: StoreKind.allCases)
    func idleSessionsAreRemovedWithTheirLogAndRememberedScreens(kind: StoreKind) throws {
        let (api, clock, factory) = try server(kind) { $0.sessionTTLSeconds = 100 }
        defer { api.store.close(); withExtendedLifetime(factory) {} }  // the factory owns the store's directory
        let idle = try api.newSession()
        let active = try api.newSession()
        _ = try event(api, idle, #"{"row": "flip"}"#)
        // Several connections, so that every server thread is likely to have answered it.
        for _ in 0..<8 { #expect(try api.send("GET", "/v1/screens/flip", session: idle).status == 200) }
        clock.advance(seconds: 90)
        _ = try event(api, active, #"{"row": "flip"}"#)
        clock.advance(seconds: 20)
        try expectRetentionRemoves(idle, keeping: active, api)
        for _ in 0..<8 { #expect(try api.send("GET", "/v1/screens/flip", session: idle).status == 401) }
        if kind == .sqlite {
            let database = try SQLiteDatabase(path: factory.directory.path + "/tabula.sqlite")
            let rows = try database.prepare("SELECT COUNT(*) FROM events WHERE token_hash = ?").rows([.text(testDigest(idle))])
            #expect(rows.first?.first?.integer == 0)
        }
        if kind == .postgres, let url = factory.databaseURL, let name = url.split(separator: "/").last {
            let count = try PostgresCluster.shared.get().query(
                "SELECT COUNT(*) FROM events WHERE token_hash = '\(testDigest(idle))'", database: String(name))
            #expect(count.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
    }

    @Test(arguments: [StoreKind.sqlite, .postgres])
    func aNewerSchemaStopsTheStartWithAClearMessage(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let catalogue = try flipCatalogue()
        try factory.open(catalogue).close()
        switch kind {
        case .sqlite:
            let database = try SQLiteDatabase(path: factory.directory.path + "/tabula.sqlite")
            try database.execute("INSERT INTO tabula_schema(version) VALUES (99)")
        default:
            let name = String(factory.databaseURL?.split(separator: "/").last ?? "")
            _ = try PostgresCluster.shared.get().query("INSERT INTO tabula_schema(version) VALUES (99)", database: name)
        }
        do {
            _ = try factory.open(catalogue)
            Issue.record("a newer schema was accepted")
        } catch {
            let known = kind == .sqlite ? SQLiteSchema.currentVersion : PostgresSchema.currentVersion
            #expect("\(error)".contains("the database schema is version 99, but this tabula knows versions up to \(known)"))
        }
    }

    @Test func aSecondProcessCannotShareASQLiteDirectory() throws {
        let factory = try StoreFactory(.sqlite)
        let catalogue = try flipCatalogue()
        let first = try factory.open(catalogue)
        #expect(throws: StoreError.self) { try factory.open(catalogue) }
        first.close()
        try factory.open(catalogue).close()
    }
}
