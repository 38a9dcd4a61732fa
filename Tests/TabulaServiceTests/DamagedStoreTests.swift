import Foundation
import Logging
import TabulaCore
import TabulaPlatform
import TabulaPostgres
import TabulaSQLite
import TabulaSamples
import TabulaTestSupport
import Testing

@testable import TabulaService

/// A damaged store is an error, never a default: a stored state, context, answer or feed
/// entry that does not decode is 500 `store-corrupt` for that session, and nothing is
/// written over it; a SQLite file that SQLite finds damaged is refused at start. Before,
/// a state that did not parse read back as `{}`, the screen showed the definitions'
/// defaults, and the next event committed them over the user's data.
@Suite struct DamagedStoreTests {
    static let backendKey = "damaged-store-backend-key"

    /// Keeps the messages logged to it, for a test to read.
    struct RecordingLogHandler: LogHandler {
        let messages: Locked<[String]>
        var logLevel: Logger.Level = .error
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { messages.withLock { $0.append("\(event.message)") } }
    }

    /// A session with a history, a client context, an answer and feed entries; its token,
    /// public id and state.
    struct Victim {
        let token: String
        let id: String
        let state: SessionState
    }

    static func makeVictim(_ api: APITestServer) throws -> Victim {
        let created = try api.send(
            "POST", "/v1/sessions", headers: ["Authorization: Bearer \(backendKey)"],
            json:
                #"{"client": {"locale": "fr", "kinds": ["basic", "checkmark", "leftRightTitles", "titleSwitch", "titleHeader", "textFooter"]}, "subject": "victim", "state": {"networks": [{"id": "office", "name": "Office", "secure": true}, {"id": "cafe", "name": "Café", "secure": false}]}}"#
        )
        let object = try #require(created.json.objectValue, "\(created.bodyText)")
        let token = try #require(object["session"]?.stringValue)
        let id = try #require(object["id"]?.stringValue)
        for (index, body) in [#"{"row": "dark"}"#, #"{"row": "light", "eventId": "e-2"}"#].enumerated() {
            let answer = try api.send("POST", "/v1/screens/settings/selection", session: token, json: body)
            #expect(answer.status == 200, "event \(index): \(answer.bodyText)")
        }
        let state = try #require(try wait { api.store.read(session: .id(id), SessionRead(), completion: $0) }?.current)
        return Victim(token: token, id: id, state: state)
    }

    static func server(_ store: any SessionStore) throws -> APITestServer {
        try APITestServer(catalogue: try APITestServer.fixtures(), store: store) { $0.backendKey = APIKey(backendKey) }
    }

    /// The kind of error a read by id meets.
    static func readError(_ store: any SessionStore, _ id: String) -> StoreError? {
        do {
            _ = try wait { store.read(session: .id(id), SessionRead(revision: 1), completion: $0) }
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            return StoreError("\(error)")
        }
    }

    /// The session's routes, the client's and the backend's, each answer 500
    /// `store-corrupt`; an event changes nothing; the service goes on serving others.
    static func expectCorruptEverywhere(_ api: APITestServer, _ victim: Victim, stored: () throws -> [UInt8]) throws {
        let before = try stored()
        let backend = try api.send("GET", "/v1/sessions/\(victim.id)", headers: ["Authorization: Bearer \(backendKey)"])
        #expect(backend.status == 500 && backend.problemSlug == "store-corrupt", "\(backend.status) \(backend.bodyText)")
        #expect(backend.bodyText.contains(victim.id), "the problem names the session: \(backend.bodyText)")
        let screen = try api.send("GET", "/v1/screens/settings", session: victim.token)
        #expect(screen.status == 500 && screen.problemSlug == "store-corrupt", "\(screen.status) \(screen.bodyText)")
        let event = try api.send("POST", "/v1/screens/settings/switch", session: victim.token, json: #"{"row": "wifi", "isOn": false}"#)
        #expect(event.status == 500 && event.problemSlug == "store-corrupt", "\(event.status) \(event.bodyText)")
        let write = try api.send(
            "PATCH", "/v1/sessions/\(victim.id)/state", headers: ["Authorization: Bearer \(backendKey)", "If-Match: *"],
            json: #"{"wifi": false}"#, contentType: "application/merge-patch+json")
        #expect(write.status == 500 && write.problemSlug == "store-corrupt", "\(write.status) \(write.bodyText)")
        #expect(try stored() == before, "the damaged state was written over")
        let other = try api.newSession()
        #expect(try api.send("GET", "/v1/screens/settings", session: other).status == 200)
        #expect(try api.send("GET", "/healthz").status == 200)
    }

    /// Every byte of the stored current state, one at a time, made 0xFF (never valid in
    /// JSON text): each read is `corrupt`, naming the session; then the HTTP routes.
    @Test func everyByteOfASQLiteStateDamagedIsAnError() throws {
        let factory = try StoreFactory(.sqlite)
        var victim: Victim
        do {
            let store = try factory.open(try APITestServer.fixtures())
            let api = try Self.server(store)
            victim = try Self.makeVictim(api)
            api.server.shutdown()
            store.close()
        }
        let path = factory.directory.appendingPathComponent("tabula.sqlite").path
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA busy_timeout=5000")
        let digest = testDigest(victim.token)
        let select = try database.prepare("SELECT state FROM events WHERE token_hash = ? AND revision = ?")
        let update = try database.prepare("UPDATE events SET state = ? WHERE token_hash = ? AND revision = ?")
        func stored(_ revision: Int) throws -> [UInt8] {
            try select.rows([.text(digest), .integer(Int64(revision))]).first?.first?.blob ?? []
        }
        let current = victim.state.revision
        let original = try stored(current)
        #expect(original.count > 100 && String(decoding: original, as: UTF8.self).contains("$client"))
        let store = try factory.open(try APITestServer.fixtures())
        defer { store.close() }
        for index in original.indices {
            var damaged = original
            damaged[index] = 0xFF
            try update.run([.blob(damaged), .text(digest), .integer(Int64(current))])
            let error = Self.readError(store, victim.id)
            #expect(error?.kind == .corrupt && error?.description.contains(victim.id) == true, "byte \(index): \(String(describing: error))")
        }
        // A past state damaged: catch-up from it is an error too, not a made-up screen.
        try update.run([.blob(original), .text(digest), .integer(Int64(current))])
        #expect(Self.readError(store, victim.id) == nil)
        let past = try stored(1)
        try update.run([.blob(Array(past.dropLast(3))), .text(digest), .integer(1)])
        #expect(Self.readError(store, victim.id)?.kind == .corrupt)
        // A client context that is not one, in otherwise sound JSON.
        let context = String(decoding: original, as: UTF8.self).replacingOccurrences(of: #""kinds":["#, with: #""kinds":[7,"#)
        try update.run([.blob(Array(context.utf8)), .text(digest), .integer(Int64(current))])
        let api = try Self.server(store)
        try Self.expectCorruptEverywhere(api, victim) { try stored(current) }
        api.server.shutdown()
    }

    /// A stored answer or feed entry that does not decode is an error, not a made-up answer
    /// or a silently missing entry.
    @Test func aDamagedAnswerOrFeedEntryIsAnError() throws {
        let factory = try StoreFactory(.sqlite)
        let store = try factory.open(try APITestServer.fixtures())
        defer { store.close() }
        let api = try Self.server(store)
        defer { api.server.shutdown() }
        let victim = try Self.makeVictim(api)
        let database = try SQLiteDatabase(path: factory.directory.appendingPathComponent("tabula.sqlite").path)
        try database.execute("PRAGMA busy_timeout=5000")
        try database.prepare("UPDATE answers SET status = 7 WHERE event_id = 'e-2'").run()
        let retry = try api.send("POST", "/v1/screens/settings/selection", session: victim.token, json: #"{"row": "light", "eventId": "e-2"}"#)
        #expect(retry.status == 500 && retry.problemSlug == "store-corrupt", "\(retry.status) \(retry.bodyText)")
        try database.prepare("UPDATE answers SET status = 'two hundred' WHERE event_id = 'e-2'").run()
        let again = try api.send("POST", "/v1/screens/settings/selection", session: victim.token, json: #"{"row": "light", "eventId": "e-2"}"#)
        #expect(again.status == 500 && again.problemSlug == "store-corrupt", "\(again.status) \(again.bodyText)")
        // A body cut short: not replayed as it is.
        try database.prepare("UPDATE answers SET status = 200, body = CAST('{\"changes\":{\"ro' AS BLOB) WHERE event_id = 'e-2'").run()
        let cut = try api.send("POST", "/v1/screens/settings/selection", session: victim.token, json: #"{"row": "light", "eventId": "e-2"}"#)
        #expect(cut.status == 500 && cut.problemSlug == "store-corrupt", "\(cut.status) \(cut.bodyText)")
        #expect(try api.revision(victim.token) == victim.state.revision)

        let feed = try api.send("GET", "/v1/feed", headers: ["Authorization: Bearer \(Self.backendKey)"])
        #expect(feed.status == 200)
        let newest = "cursor = (SELECT MAX(cursor) FROM feed)"
        for damage in [
            "UPDATE feed SET cause = 'bogus' WHERE \(newest)", "UPDATE feed SET cause = 'event', event = CAST('{garb' AS BLOB) WHERE \(newest)",
            "UPDATE feed SET event = NULL, changed_keys = CAST('garbage' AS BLOB) WHERE \(newest)",
        ] {
            try database.prepare(damage).run()
            let damaged = try api.send("GET", "/v1/feed", headers: ["Authorization: Bearer \(Self.backendKey)"])
            #expect(damaged.status == 500 && damaged.problemSlug == "store-corrupt", "\(damage): \(damaged.status) \(damaged.bodyText)")
        }
    }

    /// The same on PostgreSQL: a state's bytes damaged in the database.
    @Test func aDamagedPostgresStateIsAnError() throws {
        try Self.withPostgresVictim { api, victim, connection, digest in
            func stored() throws -> [UInt8] {
                try connection.execute("SELECT state FROM sessions WHERE token_hash = $1", [.text(digest)]).rows.first?.first?.bytes ?? []
            }
            var damaged = try stored()
            damaged[damaged.count / 2] = 0xFF
            try connection.execute("UPDATE sessions SET state = $1 WHERE token_hash = $2", [.bytes(damaged), .text(digest)])
            try Self.expectCorruptEverywhere(api, victim, stored: stored)
            try connection.execute("UPDATE answers SET status = 0 WHERE event_id = 'e-2'")
            try connection.execute(
                "UPDATE sessions SET state = $1 WHERE token_hash = $2", [.bytes(Array(#"{"wifi":true}"#.utf8)), .text(digest)])
            let retry = try api.send(
                "POST", "/v1/screens/settings/selection", session: victim.token, json: #"{"row": "light", "eventId": "e-2"}"#)
            #expect(retry.status == 500 && retry.problemSlug == "store-corrupt", "\(retry.status) \(retry.bodyText)")
        }
    }

    /// A log row already at the revision the next event makes (a partial restore): the
    /// event is 500 `store-corrupt`, naming the session. It was taken for another instance's
    /// commit, read and decided again a hundred times, then answered 503.
    @Test func aPostgresLogRowAheadOfItsSessionIsAnError() throws {
        try Self.withPostgresVictim { api, victim, connection, digest in
            try connection.execute(
                """
                INSERT INTO events(token_hash, revision, event_id, kind, payload, state, time_ms)
                SELECT token_hash, revision + 1, NULL, kind, payload, state, time_ms FROM events
                WHERE token_hash = $1 ORDER BY revision DESC LIMIT 1
                """, [.text(digest)])
            let started = ContinuousClock.now
            let event = try api.send("POST", "/v1/screens/settings/switch", session: victim.token, json: #"{"row": "wifi", "isOn": false}"#)
            #expect(event.status == 500 && event.problemSlug == "store-corrupt", "\(event.status) \(event.bodyText)")
            #expect(event.bodyText.contains(victim.id), "the problem names the session: \(event.bodyText)")
            #expect(ContinuousClock.now - started < .seconds(5))
            let other = try api.newSession()
            #expect(try api.send("POST", "/v1/screens/settings/switch", session: other, json: #"{"row": "wifi", "isOn": false}"#).status == 200)
        }
    }

    /// A victim on a PostgreSQL store, a connection of the test's own to its database, and
    /// the victim's token digest.
    static func withPostgresVictim(_ body: (APITestServer, Victim, PostgresConnection, String) throws -> Void) throws {
        let factory = try StoreFactory(.postgres)
        let store = try factory.open(try APITestServer.fixtures())
        defer { store.close() }
        let api = try Self.server(store)
        defer { api.server.shutdown() }
        let victim = try Self.makeVictim(api)
        try body(api, victim, try PostgresConnection(url: try #require(factory.databaseURL)), testDigest(victim.token))
    }

    /// A session's revision damaged to one no state has (below 0), or one the next event
    /// could not count past: an error, never a state whose next commit overflows.
    @Test(arguments: [Int64(-1), Int64.max])
    func aPostgresRevisionOutOfRangeIsAnError(revision: Int64) throws {
        try Self.withPostgresVictim { api, victim, connection, digest in
            try connection.execute("UPDATE sessions SET revision = $1 WHERE token_hash = $2", [.integer(revision), .text(digest)])
            try Self.expectCorruptEverywhere(api, victim) {
                try connection.execute("SELECT revision, state FROM sessions WHERE token_hash = $1", [.text(digest)]).rows.first.map {
                    Array("\($0[0].integer ?? 0)".utf8) + ($0[1].bytes ?? [])
                } ?? []
            }
        }
    }

    /// A SQLite store of 12 victims, closed: its factory, the victims and the file's bytes.
    static func sqliteFileWithVictims() throws -> (StoreFactory, [Victim], Data) {
        let factory = try StoreFactory(.sqlite)
        var victims: [Victim] = []
        // In a scope of its own: the file is read once the server is gone.
        do {
            let store = try factory.open(try APITestServer.fixtures())
            let api = try Self.server(store)
            for _ in 0..<12 { victims.append(try Self.makeVictim(api)) }
            api.server.shutdown()
            store.close()
        }
        return (factory, victims, try Data(contentsOf: factory.directory.appendingPathComponent("tabula.sqlite")))
    }

    /// Each page of a SQLite file overwritten in turn (random bytes, then zeros): the
    /// store either refuses to open, with SQLite's own words, or opens and reads every
    /// session exactly as it was or as an error; never a session gone or a different state.
    @Test func everyPageOfASQLiteFileDamagedIsRefusedOrReadExactly() throws {
        let (factory, victims, original) = try Self.sqliteFileWithVictims()
        #expect(!FileManager.default.fileExists(atPath: factory.directory.appendingPathComponent("tabula.sqlite-wal").path))
        let pageSize = 4096
        let pages = original.count / pageSize
        #expect(pages >= 10, "the file has only \(pages) pages")
        var random = SplitMix64(seed: 52)
        var refused = 0
        var readExactly = 0
        for page in 0..<pages {
            for fill in ["random", "zeros"] {
                let scratch = try makeTemporaryDirectory()
                defer { try? FileManager.default.removeItem(at: scratch) }
                var damaged = original
                let bytes = (0..<pageSize).map { _ in fill == "zeros" ? UInt8(0) : UInt8.random(in: 0...255, using: &random) }
                damaged.replaceSubrange(page * pageSize..<(page + 1) * pageSize, with: bytes)
                try damaged.write(to: scratch.appendingPathComponent("tabula.sqlite"))
                let store: SQLiteSessionStore
                let logged = Locked<[String]>([])
                do {
                    let logger = Logger(label: "damaged") { _ in RecordingLogHandler(messages: logged) }
                    store = try SQLiteSessionStore(directory: scratch.path, settings: StoreSettings(), logger: logger, retentionIntervalSeconds: 0)
                } catch {
                    refused += 1
                    #expect(
                        error.description.contains("is damaged; SQLite's quick_check") || error.description.contains("not a database"),
                        "page \(page) (\(fill)): refused without SQLite's words: \(error)")
                    continue
                }
                defer { store.close() }
                for victim in victims {
                    do {
                        let found = try wait { store.read(session: .id(victim.id), SessionRead(), completion: $0) }
                        #expect(found?.current == victim.state, "page \(page) (\(fill)): session \(victim.id) read as \(String(describing: found?.current))")
                    } catch let error as StoreError {
                        #expect(error.kind == .corrupt, "page \(page) (\(fill)): \(error)")
                        // Logged with the session's public id.
                        #expect(
                            logged.withLock { $0.contains { $0.hasPrefix("session \(victim.id):") } },
                            "page \(page) (\(fill)): \(logged.withLock { $0 })")
                    }
                }
                readExactly += 1
            }
        }
        print("DamagedStoreTests: \(pages) pages × 2 fills: \(refused) refused at start, \(readExactly) opened and read exactly or as errors")
        #expect(refused > 0)
    }

    /// The same damage served without the quick check (`--skip-quick-check`): every read
    /// that fails on a damaged page is `store-corrupt`, logged with the session's public id,
    /// found by token too when the sessions' table still gives it.
    @Test func withoutTheQuickCheckADamagedReadIsLoggedWithItsSession() throws {
        let (_, victims, original) = try Self.sqliteFileWithVictims()
        var named = (byID: 0, byToken: 0)
        for page in 0..<original.count / 4096 {
            let scratch = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: scratch) }
            var damaged = original
            damaged.replaceSubrange(page * 4096..<(page + 1) * 4096, with: [UInt8](repeating: 0xA5, count: 4096))
            try damaged.write(to: scratch.appendingPathComponent("tabula.sqlite"))
            let logged = Locked<[String]>([])
            let logger = Logger(label: "damaged") { _ in RecordingLogHandler(messages: logged) }
            guard
                let store = try? SQLiteSessionStore(
                    directory: scratch.path, settings: StoreSettings(), logger: logger, quickCheck: false, retentionIntervalSeconds: 0)
            else { continue }
            defer { store.close() }
            for victim in victims {
                for name in [SessionName.id(victim.id), .token(victim.token)] {
                    logged.withLock { $0 = [] }
                    do {
                        let found = try wait { store.read(session: name, SessionRead(), completion: $0) }
                        #expect(found == nil || found?.current == victim.state, "page \(page): \(victim.id) read as another state")
                    } catch let error as StoreError {
                        #expect(error.kind == .corrupt, "page \(page): \(error)")
                        guard logged.withLock({ $0.contains { $0.hasPrefix("session \(victim.id):") } }) else {
                            // By token, the damage may hide the id too; by id, never.
                            if case .id = name { Issue.record("page \(page): \(logged.withLock { $0 })") }
                            continue
                        }
                        if case .id = name { named.byID += 1 } else { named.byToken += 1 }
                    }
                }
            }
        }
        print("DamagedStoreTests: without the quick check, \(named.byID) reads by id and \(named.byToken) by token failed and named their session")
        #expect(named.byToken > 0)
    }

    /// `tabula serve` on a file one page of which was overwritten (the probe) refuses to
    /// start, with SQLite's words; with `--skip-quick-check` it serves, and a damaged
    /// session answers 500 instead of passing for a new one.
    @Test func serveRefusesADamagedFileAndServesItWhenTold() throws {
        let data = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        var victims: [Victim] = []
        do {
            let store = try SQLiteSessionStore(directory: data.path, settings: StoreSettings(), logger: Logger(label: "setup"))
            let api = try Self.server(store)
            for _ in 0..<30 { victims.append(try Self.makeVictim(api)) }
            api.server.shutdown()
            store.close()
        }
        let file = data.appendingPathComponent("tabula.sqlite")
        var bytes = try Data(contentsOf: file)
        // The last page holds the newest rows of the log.
        let page = bytes.count / 4096 - 1
        bytes.replaceSubrange(page * 4096..<(page + 1) * 4096, with: [UInt8](repeating: 0xA5, count: 4096))
        try bytes.write(to: file)
        let arguments = ["--store", "sqlite", "--data-dir", data.path, "--backend-key", Self.backendKey]
        do {
            _ = try ServerProcess(arguments: arguments)
            Issue.record("tabula serve started on a damaged file")
        } catch {
            #expect("\(error)".contains("tabula.sqlite is damaged; SQLite's quick_check"), "\(error)")
        }
        let server = try ServerProcess(arguments: arguments + ["--skip-quick-check"])
        var damaged = 0
        for victim in victims {
            let record = try RawHTTPConnection(port: server.port)
            try record.send(getRequest("/v1/sessions/\(victim.id)", headers: ["Authorization: Bearer \(Self.backendKey)"]))
            let answer = try record.readResponse()
            if answer.status == 500 {
                #expect(answer.bodyText.contains("store-corrupt"))
                // The log names the session, whatever the damage: a row that does not decode, or
                // a page SQLite finds damaged.
                #expect(server.waitForLog(containing: ["session \(victim.id):"]), "\(server.log)")
                damaged += 1
            } else {
                #expect(answer.status == 200, "\(answer.status) \(answer.bodyText)")
                #expect(answer.json.objectValue?["revision"]?.intValue == victim.state.revision)
            }
        }
        print("DamagedStoreTests: with --skip-quick-check, \(damaged) of \(victims.count) sessions answered 500 store-corrupt")
    }

    /// A file SQLite cannot even open (cut short, or not a database), and one cut to nothing,
    /// which SQLite would take for a new database: both refused, never served as empty.
    @Test func aFileCutShortOrEmptyIsRefused() throws {
        let data = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        do {
            let store = try SQLiteSessionStore(directory: data.path, settings: StoreSettings(), logger: Logger(label: "setup"))
            let api = try Self.server(store)
            _ = try Self.makeVictim(api)
            api.server.shutdown()
            store.close()
        }
        let file = data.appendingPathComponent("tabula.sqlite")
        let whole = try Data(contentsOf: file)
        for (length, words) in [(4_000, "is damaged; SQLite cannot open it"), (0, "is empty (0 bytes)")] {
            try whole.prefix(length).write(to: file)
            do {
                _ = try SQLiteSessionStore(directory: data.path, settings: StoreSettings(), logger: Logger(label: "damaged"))
                Issue.record("a file of \(length) bytes opened")
            } catch {
                #expect(error.kind == .corrupt && error.description.contains(words), "\(length) bytes: \(error)")
            }
        }
    }
}
