import Foundation
import TabulaCore
import TabulaSQLite
import TabulaTestSupport
import Testing

@testable import TabulaService

/// A database written by an older tabula opens with its sessions intact.
@Suite struct SQLiteMigrationTests {
    /// Schema version 1 as the first release created it (sessions carried their current state).
    static let versionOne = """
        CREATE TABLE tabula_schema (version INTEGER NOT NULL);
        INSERT INTO tabula_schema(version) VALUES (1);
        CREATE TABLE sessions (
            token TEXT PRIMARY KEY, revision INTEGER NOT NULL, state BLOB NOT NULL,
            created_ms INTEGER NOT NULL, last_used_ms INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX sessions_by_last_use ON sessions(last_used_ms);
        CREATE TABLE events (
            token TEXT NOT NULL, revision INTEGER NOT NULL, event_id TEXT, kind TEXT NOT NULL,
            payload BLOB NOT NULL, state BLOB NOT NULL, time_ms INTEGER NOT NULL,
            PRIMARY KEY (token, revision)
        ) WITHOUT ROWID;
        CREATE TABLE answers (
            token TEXT NOT NULL, event_id TEXT NOT NULL, fingerprint BLOB NOT NULL, status INTEGER NOT NULL,
            body BLOB NOT NULL, time_ms INTEGER NOT NULL, PRIMARY KEY (token, event_id)
        ) WITHOUT ROWID;
        CREATE INDEX answers_by_time ON answers(time_ms);
        """

    @Test func versionOneSessionsKeepTheirStateAndLog() throws {
        let factory = try StoreFactory(.sqlite)
        let path = factory.directory.path + "/tabula.sqlite"
        let complete = String(repeating: "A", count: 32)
        let headOnlyInSessions = String(repeating: "B", count: 32)
        let now = unixMilliseconds()
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute(Self.versionOne)
            let insertSession = try database.prepare("INSERT INTO sessions VALUES (?, ?, ?, ?, ?)")
            let insertEvent = try database.prepare("INSERT INTO events VALUES (?, ?, NULL, 'switch', x'7b7d', ?, ?)")
            let states = [#"{"on":false}"#, #"{"on":true}"#, #"{"on":false}"#, #"{"on":true}"#].map { SQLiteValue.blob(Array($0.utf8)) }
            try insertSession.run([.text(complete), .integer(1), states[1], .integer(now), .integer(now)])
            for revision in 0...1 { try insertEvent.run([.text(complete), .integer(Int64(revision)), states[revision], .integer(now)]) }
            // A head that only `sessions` holds (the log lost it): the migration must keep it.
            try insertSession.run([.text(headOnlyInSessions), .integer(3), states[3], .integer(now), .integer(now)])
            for revision in 0...2 { try insertEvent.run([.text(headOnlyInSessions), .integer(Int64(revision)), states[revision], .integer(now)]) }
        }

        let catalogue = try flipCatalogue()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        defer { api.store.close() }
        let first = try api.send("GET", "/v1/screens/flip", session: complete)
        #expect(first.json.objectValue?["revision"] == 1)
        #expect(first.bodyText.contains(#""isOn":true"#))
        #expect(try api.revision(headOnlyInSessions, screen: "flip") == 3)
        let flipped = try api.send("POST", "/v1/screens/flip/selection", session: headOnlyInSessions, json: #"{"row": "flip"}"#)
        #expect(flipped.json.objectValue?["toRevision"] == 4)
        #expect(flipped.bodyText.contains(#""isOn":false"#))
        // Revision 2 is still rebuildable from the migrated log.
        let catchUp = try api.send("GET", "/v1/screens/flip/changes?since=2", session: headOnlyInSessions)
        #expect(catchUp.status == 200)
        #expect(catchUp.json.objectValue?["toRevision"] == 4)

        let database = try SQLiteDatabase(path: path)
        #expect(try database.prepare("SELECT MAX(version) FROM tabula_schema").rows().first?.first?.integer == Int64(SQLiteSchema.currentVersion))
        // Version 8: the log is a rowid table.
        let log = try database.prepare("SELECT sql FROM sqlite_schema WHERE name = 'events'").rows().first?.first?.text ?? ""
        #expect(log.hasPrefix("CREATE TABLE") && !log.uppercased().contains("WITHOUT ROWID"), "\(log)")
        let columns = try database.prepare("SELECT name FROM pragma_table_info('sessions')").rows().compactMap { $0.first?.text }
        #expect(columns == ["token_hash", "created_ms", "last_used_ms", "id", "subject"])
        let heads = try database.prepare("SELECT kind FROM events WHERE token_hash = ? AND revision = 3").rows([.text(testDigest(headOnlyInSessions))])
        #expect(heads.first?.first?.text == "migrated")
    }

    /// Schema version 5 keeps tokens only as digests and gives each session an id: the
    /// migrated sessions answer to their tokens, and the file holds no token.
    @Test func migratedTokensAreKeptOnlyAsDigests() throws {
        let factory = try StoreFactory(.sqlite)
        let path = factory.directory.path + "/tabula.sqlite"
        let token = String(repeating: "C", count: 32)
        let now = unixMilliseconds()
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute(Self.versionOne)
            try database.prepare("INSERT INTO sessions VALUES (?, 1, ?, ?, ?)").run([
                .text(token), .blob(Array(#"{"on":true}"#.utf8)), .integer(now), .integer(now),
            ])
            let insertEvent = try database.prepare("INSERT INTO events VALUES (?, ?, ?, 'switch', x'7b7d', ?, ?)")
            try insertEvent.run([.text(token), .integer(0), .null, .blob(Array(#"{"on":false}"#.utf8)), .integer(now)])
            try insertEvent.run([.text(token), .integer(1), .text("retry-1"), .blob(Array(#"{"on":true}"#.utf8)), .integer(now)])
            try database.prepare("INSERT INTO answers VALUES (?, 'retry-1', x'00', 200, x'7b7d', ?)").run([.text(token), .integer(now)])
        }
        let catalogue = try flipCatalogue()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { $0.backendKey = APIKey("backend-key-0123456") }
        defer { api.store.close() }
        #expect(try api.revision(token, screen: "flip") == 1)
        let database = try SQLiteDatabase(path: path)
        let ids = try database.prepare("SELECT id FROM sessions").rows().compactMap { $0.first?.text }
        #expect(ids.count == 1 && ids.allSatisfy(SessionID.isWellFormed))
        let record = try api.send("GET", "/v1/sessions/\(ids.first ?? "")", headers: ["Authorization: Bearer backend-key-0123456"])
        #expect(record.status == 200 && record.json.objectValue?["revision"] == 1)
        for table in ["sessions", "events", "answers"] {
            let rows = try database.prepare("SELECT token_hash FROM \(table)").rows().compactMap { $0.first?.text }
            #expect(!rows.isEmpty && rows.allSatisfy { $0 == testDigest(token) }, "\(table)")
        }
        #expect(try !Data(contentsOf: URL(fileURLWithPath: path)).contains(Data(token.utf8)))
    }

    /// The log is a ring of `--keep-revisions` + 1 slots; a restart with another value
    /// resizes it and keeps exactly the newest revisions the new value promises.
    @Test func aRestartWithAnotherKeepRevisionsKeepsTheNewestRevisions() throws {
        let factory = try StoreFactory(.sqlite)
        let catalogue = try flipCatalogue()
        func reopen(keep: Int) throws -> APITestServer {
            factory.settings.keepRevisions = keep
            return try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        }
        func catchUp(_ api: APITestServer, _ session: String, since: Int) throws -> Int {
            try api.send("GET", "/v1/screens/flip/changes?since=\(since)", session: session).status
        }
        var api = try reopen(keep: 100)
        let session = try api.newSession()
        for _ in 0..<10 { _ = try api.send("POST", "/v1/screens/flip/selection", session: session, json: #"{"row": "flip"}"#) }
        #expect(try catchUp(api, session, since: 0) == 200)
        api.store.close()

        api = try reopen(keep: 3)
        #expect(try api.revision(session, screen: "flip") == 10)
        #expect(try catchUp(api, session, since: 7) == 200)
        #expect(try catchUp(api, session, since: 6) == 409)
        // The ring wraps: revision 11 takes the slot of revision 7.
        let next = try api.send("POST", "/v1/screens/flip/selection", session: session, json: #"{"row": "flip"}"#)
        #expect(next.json.objectValue?["toRevision"] == 11)
        #expect(try catchUp(api, session, since: 8) == 200)
        #expect(try catchUp(api, session, since: 7) == 409)
        api.store.close()

        api = try reopen(keep: 50)
        defer { api.store.close() }
        #expect(try catchUp(api, session, since: 8) == 200)
        #expect(try catchUp(api, session, since: 7) == 409)
        for _ in 0..<60 { _ = try api.send("POST", "/v1/screens/flip/selection", session: session, json: #"{"row": "flip"}"#) }
        #expect(try api.revision(session, screen: "flip") == 71)
        #expect(try catchUp(api, session, since: 21) == 200)
        #expect(try catchUp(api, session, since: 20) == 409)
        let database = try SQLiteDatabase(path: factory.directory.path + "/tabula.sqlite")
        let rows = try database.prepare("SELECT COUNT(*) FROM events WHERE token_hash = ?").rows([.text(testDigest(session))])
        #expect(rows.first?.first?.integer == 51)
    }
}

/// The log's layout: a row of the log holds a whole state, which stays in its B-tree leaf
/// up to nearly a page (schema version 8), so that an event writes one page of the log
/// rather than a leaf and an overflow page.
@Suite struct SQLiteLogLayoutTests {
    @Test func aStateOfThreeKilobytesTakesNoOverflowPage() throws {
        let factory = try StoreFactory(.sqlite)
        let note = String(repeating: "n", count: 3000)
        let catalogue = try Catalogue.load([
            DefinitionFile(
                name: "flip.json",
                bytes: Array(
                    #"""
                    {"id": "flip", "title": "Flip", "state": {"on": false, "note": "\#(note)"},
                     "sections": [{"id": "s", "rows": [{"id": "flip", "kind": "titleSwitch", "title": "Flip", "isOn": "on", "onSelect": {"toggle": "on"}}]}]}
                    """#.utf8))
        ])
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        defer { api.store.close() }
        for _ in 0..<4 {
            let session = try api.newSession()
            for _ in 0..<5 { #expect(try api.send("POST", "/v1/screens/flip/selection", session: session, json: #"{"row": "flip"}"#).status == 200) }
        }
        let database = try SQLiteDatabase(path: factory.directory.path + "/tabula.sqlite")
        try database.execute("PRAGMA busy_timeout=5000")
        let pages = try database.prepare("SELECT pagetype, COUNT(*) FROM dbstat WHERE name = 'events' GROUP BY pagetype").rows()
        let counts = Dictionary(uniqueKeysWithValues: pages.compactMap { row in row[0].text.map { ($0, row[1].integer ?? 0) } })
        #expect(counts["leaf", default: 0] > 0, "\(counts)")
        #expect(counts["overflow", default: 0] == 0, "\(counts)")
    }
}

/// A removed session stays removed: its log cannot be written again, and a state read
/// before the removal is not put back into the cache after it.
@Suite struct SQLiteRemovalTests {
    /// Makes `events` flips on a new session (keeping `keepRevisions`), deletes the session's
    /// row behind the store's back, and sends one more flip; returns its status and the
    /// session's log afterwards: its newest revision and its row count.
    func flipAfterTheSessionRowIsGone(keepRevisions: Int, events: Int) throws -> (status: Int, newest: Int64?, rows: Int64?) {
        let factory = try StoreFactory(.sqlite)
        factory.settings.keepRevisions = keepRevisions
        let catalogue = try flipCatalogue()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        defer { api.store.close() }
        let session = try api.newSession()
        for _ in 0..<events { _ = try api.send("POST", "/v1/screens/flip/selection", session: session, json: #"{"row": "flip"}"#) }
        #expect(try api.revision(session, screen: "flip") == events)  // cached now
        let database = try SQLiteDatabase(path: factory.directory.path + "/tabula.sqlite")
        try database.execute("PRAGMA busy_timeout=5000; DELETE FROM sessions WHERE token_hash = '\(testDigest(session))'")
        let response = try api.send("POST", "/v1/screens/flip/selection", session: session, json: #"{"row": "flip"}"#)
        let log = try database.prepare("SELECT MAX(revision), COUNT(*) FROM events WHERE token_hash = ?").rows([.text(testDigest(session))]).first
        return (response.status, log?.first?.integer, log?.last?.integer)
    }

    @Test func anEventForASessionWhoseRowIsGoneWritesNoLog() throws {
        let outcome = try flipAfterTheSessionRowIsGone(keepRevisions: 100, events: 0)
        #expect(outcome.status != 200)
        #expect(outcome.newest == 0 && outcome.rows == 1)
    }

    /// The same once the session's ring is full, where an event overwrites its slot in place.
    @Test func anEventForASessionWhoseRowIsGoneOverwritesNoSlot() throws {
        let outcome = try flipAfterTheSessionRowIsGone(keepRevisions: 2, events: 4)
        #expect(outcome.status != 200)
        #expect(outcome.newest == 4 && outcome.rows == 3)
    }

    /// A reader's state is not put back once a newer state of the session was put and then
    /// dropped to keep the bound: the cache would hold an older revision than the database.
    @Test func aStateReadBeforeANewerOneWasDroppedIsNotCachedAfterIt() {
        let cache = SessionStateCache(maxBytes: 1)
        let session = SessionKey("session")
        let mark = cache.removalCount
        // A state over a shard's share: the next put into its shard drops it.
        let large = SessionState(revision: 6, values: ["note": .scalar(.string(String(repeating: "x", count: 8_000)))])
        cache.put(session, digest: testDigest("session"), large)
        var others = 0
        while cache.get(session) != nil && others < 1_000 {
            cache.put(SessionKey("other-\(others)"), digest: testDigest("other-\(others)"), SessionState(revision: 1))
            others += 1
        }
        #expect(cache.get(session) == nil, "the newer state was dropped to keep the bound")
        cache.put(session, digest: testDigest("session"), SessionState(revision: 5), unlessRemovedSince: mark)
        #expect(cache.get(session) == nil, "the reader's older state came back")
    }

    @Test func aStateReadBeforeARemovalIsNotCachedAfterIt() {
        let cache = SessionStateCache(maxBytes: 1 << 20)
        let state = SessionState(revision: 5)
        let before = cache.removalCount
        cache.remove(digest: testDigest("other-session"))
        cache.put(SessionKey("session"), digest: testDigest("session"), state, unlessRemovedSince: before)
        #expect(cache.get(SessionKey("session")) == nil)
        cache.put(SessionKey("session"), digest: testDigest("session"), state, unlessRemovedSince: cache.removalCount)
        #expect(cache.get(SessionKey("session"))?.state.revision == 5)
        #expect(cache.get(digest: testDigest("session"))?.state.revision == 5)
        cache.remove(digest: testDigest("session"))
        #expect(cache.get(SessionKey("session")) == nil)
    }
}
