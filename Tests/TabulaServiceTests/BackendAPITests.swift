import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPostgres
import TabulaSQLite
import TabulaTestSupport
import Testing

@testable import TabulaService

/// The backend's routes: sessions created with the user's data, read and ended by their
/// public id, under the backend key, on every store. Every refusal leaves the store as it
/// was.
@Suite struct BackendAPITests {
    static let key = "backend-key-0123"
    static let authorization = "Authorization: Bearer \(key)"

    /// A server on a fresh store of `kind`, with the backend key unless told otherwise.
    func server(_ kind: StoreKind, backendKey: String? = key, apiKey: String? = nil) throws -> (APITestServer, StoreFactory) {
        let factory = try StoreFactory(kind)
        let catalogue = try APITestServer.fixtures()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = backendKey.flatMap(APIKey.init)
            configuration.apiKey = apiKey.flatMap(APIKey.init)
        }
        return (api, factory)
    }

    func create(_ api: APITestServer, _ body: String, headers: [String] = [authorization]) throws -> RawHTTPResponse {
        try api.send("POST", "/v1/sessions", headers: headers, json: body)
    }

    @Test(arguments: StoreKind.allCases)
    func aSessionCreatedWithTheUsersDataShowsIt(_ kind: StoreKind) throws {
        let (api, _) = try server(kind)
        defer { api.store.close() }
        let created = try create(
            api, #"{"subject": "user-42", "state": {"bluetooth": true, "networks": [{"id": "office", "name": "Office", "secure": true}]}}"#)
        #expect(created.status == 201)
        let body = try #require(created.json.objectValue)
        let token = try #require(body["session"]?.stringValue)
        let id = try #require(body["id"]?.stringValue)
        #expect(SessionID.isWellFormed(id) && SessionToken.isWellFormed(token))
        #expect(body["revision"] == 0)
        #expect(Array(body.keys) == ["client", "id", "revision", "session"])
        #expect(created.header("Location") == "/v1/sessions/\(id)")

        // The client sees the user's data.
        let screen = try api.send("GET", "/v1/screens/settings", session: token)
        #expect(screen.bodyText.contains("Office") && !screen.bodyText.contains("Corner Caf"))

        // The backend reads it back by id, tagged with its revision.
        let record = try api.send("GET", "/v1/sessions/\(id)", headers: [Self.authorization])
        #expect(record.status == 200)
        #expect(record.header("ETag") == "\"0\"")
        let fields = try #require(record.json.objectValue)
        #expect(Array(fields.keys) == ["createdAt", "id", "lastUsedAt", "revision", "state", "subject"])
        #expect(fields["id"]?.stringValue == id && fields["subject"]?.stringValue == "user-42" && fields["revision"] == 0)
        let state = try #require(fields["state"]?.objectValue)
        #expect(state["wifi"] == true && state["bluetooth"] == true && state["appearance"]?.stringValue == "automatic")
        #expect(state["networks"]?.arrayValue?.count == 1)
        #expect(fields["createdAt"]?.stringValue?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        #expect(try api.send("GET", "/v1/sessions/\(id)", headers: [Self.authorization, "If-None-Match: \"0\""]).status == 304)

        // A client's event moves the revision the backend sees.
        let event = try api.send("POST", "/v1/screens/settings/switch", session: token, json: #"{"row": "wifi", "isOn": false}"#)
        #expect(event.status == 200)
        let after = try api.send("GET", "/v1/sessions/\(id)", headers: [Self.authorization])
        #expect(after.header("ETag") == "\"1\"" && after.json.objectValue?["state"]?.objectValue?["wifi"] == false)
        #expect(after.json.objectValue?["subject"]?.stringValue == "user-42")
    }

    @Test(arguments: StoreKind.allCases)
    func aDeletedSessionIsUnknownByTokenAndByID(_ kind: StoreKind) throws {
        let (api, _) = try server(kind)
        defer { api.store.close() }
        let created = try create(api, "{}")
        let token = try #require(created.json.objectValue?["session"]?.stringValue)
        let id = try #require(created.json.objectValue?["id"]?.stringValue)
        #expect(try api.revision(token) == 0)  // cached by the server thread and the store
        let other = try api.newSession()

        let deleted = try api.send("DELETE", "/v1/sessions/\(id)", headers: [Self.authorization])
        #expect(deleted.status == 204 && deleted.body.isEmpty)
        #expect(try api.send("GET", "/v1/screens/settings", session: token).problemType == "unknown-session")
        let event = try api.send("POST", "/v1/screens/settings/switch", session: token, json: #"{"row": "wifi", "isOn": false}"#)
        #expect(event.status == 401 && event.problemType == "unknown-session")
        for method in ["GET", "DELETE"] {
            let gone = try api.send(method, "/v1/sessions/\(id)", headers: [Self.authorization])
            #expect(gone.status == 404 && gone.problemType == "unknown-session", "\(method)")
        }
        #expect(try api.revision(other) == 0)
    }

    /// Without a configured key the backend routes are off (403); with one, a missing or
    /// wrong key is 401. Neither creates, reads nor deletes anything.
    @Test(arguments: StoreKind.allCases)
    func theBackendKeyGuardsEveryBackendRoute(_ kind: StoreKind) throws {
        let (api, _) = try server(kind)
        defer { api.store.close() }
        let created = try create(api, #"{"subject": "user-1"}"#)
        let id = try #require(created.json.objectValue?["id"]?.stringValue)
        let sessions = api.store.sessionCount()
        for headers in [[], ["Authorization: Bearer wrong"], ["Authorization: Basic \(Self.key)"]] {
            for (method, path, body) in [
                ("GET", "/v1/sessions/\(id)", nil), ("DELETE", "/v1/sessions/\(id)", nil),
                ("POST", "/v1/sessions", #"{"subject": "user-2"}"#), ("POST", "/v1/sessions", #"{"state": {"wifi": false}}"#),
                // The key is asked before the subject's length: a 422 told a request without
                // the key how long a subject may be, instead of that it needs the key.
                ("POST", "/v1/sessions", #"{"subject": "\#(String(repeating: "u", count: 300))"}"#),
            ] {
                let response = try api.send(method, path, headers: headers, json: body)
                #expect(response.status == 401 && response.problemType == "unauthorized", "\(method) \(path) \(headers)")
                #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            }
        }
        #expect(api.store.sessionCount() == sessions)
        #expect(try api.send("GET", "/v1/sessions/\(id)", headers: [Self.authorization]).status == 200)
        // A client's new session needs no key.
        #expect(try api.send("POST", "/v1/sessions").status == 201)
        #expect(try api.send("POST", "/v1/sessions", json: "{}").status == 201)

        let (off, _) = try server(kind, backendKey: nil)
        defer { off.store.close() }
        for (method, path, body) in [
            ("GET", "/v1/sessions/\(id)", nil), ("DELETE", "/v1/sessions/\(id)", nil), ("POST", "/v1/sessions", #"{"subject": "user-2"}"#),
        ] {
            let response = try off.send(method, path, headers: [Self.authorization], json: body)
            #expect(response.status == 403 && response.problemType == "backend-disabled", "\(method) \(path)")
            #expect(response.json.objectValue?["detail"]?.stringValue?.contains("--backend-key") == true)
        }
        #expect(off.store.sessionCount() == 0)
    }

    /// The backend key passes wherever `--api-key` is required; the API key does not pass
    /// for the backend.
    @Test func theBackendKeyPassesForTheAPIKey() throws {
        let (api, _) = try server(.memory, apiKey: "client-api-key-0123")
        let created = try create(api, #"{"subject": "u"}"#)
        #expect(created.status == 201)
        let token = try #require(created.json.objectValue?["session"]?.stringValue)
        #expect(try api.send("GET", "/v1/screens/settings", session: token, headers: [Self.authorization]).status == 200)
        #expect(try api.send("GET", "/v1/screens/settings", session: token, headers: ["Authorization: Bearer client-api-key-0123"]).status == 200)
        #expect(try api.send("GET", "/v1/screens/settings", session: token).status == 401)
        let id = try #require(created.json.objectValue?["id"]?.stringValue)
        let refused = try api.send("GET", "/v1/sessions/\(id)", headers: ["Authorization: Bearer client-api-key-0123"])
        #expect(refused.status == 401 && refused.problemType == "unauthorized")
    }

    /// A state that does not fit the schema or the limits, a subject too long, a body of
    /// the wrong shape: each refused with what to fix, and no session is created.
    @Test(arguments: StoreKind.allCases)
    func invalidNewSessionsAreRefusedAndCreateNothing(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let catalogue = try APITestServer.fixtures()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(Self.key)
            configuration.stateLimits = StateLimits(maxStateBytes: 4096, maxListLength: 4)
        }
        defer { api.store.close() }
        let cases: [(body: String, status: Int, type: String, path: String?)] = [
            (#"{"state": {"wifii": true}}"#, 422, "invalid-state", "$.state.wifii"),
            (#"{"state": {"wifi": "yes"}}"#, 422, "invalid-state", "$.state.wifi"),
            (#"{"state": {"networks": [{"id": "a", "name": "A", "secure": 1}]}}"#, 422, "invalid-state", "$.state.networks[0].secure"),
            (#"{"state": {"networks": [{"id": "a", "name": "A"}]}}"#, 422, "invalid-state", nil),
            (#"{"state": []}"#, 422, "invalid-state", "$.state"),
            // An id no item screen's ?item= could name, and one whose rows' ids would fuse.
            (
                #"{"state": {"networks": [{"id": "\#(String(repeating: "n", count: 1025))", "name": "A", "secure": true}]}}"#, 422, "invalid-state",
                "$.state.networks[0].id"
            ),
            (#"{"state": {"networks": [{"id": "\u0301a", "name": "A", "secure": true}]}}"#, 422, "invalid-state", "$.state.networks[0].id"),
            (
                #"{"state": {"networks": [{"id": "a", "name": "A", "secure": true}, {"id": "b", "name": "B", "secure": true}, {"id": "c", "name": "C", "secure": true}, {"id": "d", "name": "D", "secure": true}, {"id": "e", "name": "E", "secure": true}]}}"#,
                422, "list-too-long", nil
            ),
            (#"{"state": {"appearance": "\#(String(repeating: "x", count: 5000))"}}"#, 422, "state-too-large", nil),
            (#"{"subject": "\#(String(repeating: "é", count: 129))"}"#, 422, "subject-too-long", "$.subject"),
            (#"{"subject": 42}"#, 400, "invalid-body", nil),
            (#"{"client": []}"#, 400, "invalid-body", nil),
            (#"["state"]"#, 400, "invalid-body", nil),
            (#"{"state": "#, 400, "malformed-json", nil),
        ]
        for example in cases {
            let response = try create(api, example.body)
            #expect(response.status == example.status && response.problemType == example.type, "\(example.body.prefix(60)): \(response.bodyText)")
            if let path = example.path { #expect(response.json.objectValue?["path"]?.stringValue == path, "\(example.body.prefix(60))") }
        }
        let wrongType = try api.send("POST", "/v1/sessions", headers: [Self.authorization], json: #"{"subject": "u"}"#, contentType: "text/plain")
        #expect(wrongType.status == 415)
        #expect(api.store.sessionCount() == 0)
        // Exactly at the limits is fine; a subject of 256 bytes too.
        let atLimit = try create(
            api,
            #"{"subject": "\#(String(repeating: "é", count: 128))", "state": {"networks": [{"id": "a", "name": "A", "secure": true}, {"id": "b", "name": "B", "secure": true}, {"id": "c", "name": "C", "secure": true}, {"id": "d", "name": "D", "secure": true}]}}"#
        )
        #expect(atLimit.status == 201, "\(atLimit.bodyText)")
        let longestID = try create(
            api, #"{"state": {"networks": [{"id": "\#(String(repeating: "n", count: 1024))", "name": "A", "secure": true}]}}"#)
        #expect(longestID.status == 201, "\(longestID.bodyText)")
    }

    @Test func malformedAndUnknownIDsAre404() throws {
        let (api, _) = try server(.memory)
        for id in ["s_aaaaaaaaaaaaaaaaaaaa", "s_AAAAAAAAAAAAAAAAAAAA", "nope", "s_", "s_aaaaaaaaaaaaaaaaaaaaa", "s_%27%3B--"] {
            for method in ["GET", "DELETE"] {
                let response = try api.send(method, "/v1/sessions/\(id)", headers: [Self.authorization])
                #expect(response.status == 404 && response.problemType == "unknown-session", "\(method) \(id)")
            }
        }
        #expect(try api.send("PUT", "/v1/sessions/s_aaaaaaaaaaaaaaaaaaaa", headers: [Self.authorization]).status == 405)
    }

    /// Ids and tokens come from the system's random source: no two alike, every id of the
    /// documented shape.
    @Test func idsAreRandomAndWellFormed() {
        let ids = (0..<10_000).map { _ in SessionID.make() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy(SessionID.isWellFormed))
        #expect(ids.allSatisfy { $0.wholeMatch(of: /s_[a-z2-7]{20}/) != nil })
        // Every character position takes many values (no stuck bits).
        for position in 2..<22 {
            let characters = Set(ids.map { Array($0.utf8)[position] })
            #expect(characters.count == 32, "position \(position)")
        }
    }

    /// The durable stores keep no token: only its SHA-256, as OpenSSL computes it.
    @Test(arguments: [StoreKind.sqlite, .postgres])
    func storesKeepOnlyTheTokensDigest(_ kind: StoreKind) throws {
        let (api, factory) = try server(kind)
        let created = try create(api, #"{"subject": "user-7"}"#)
        let token = try #require(created.json.objectValue?["session"]?.stringValue)
        _ = try api.send("POST", "/v1/screens/settings/switch", session: token, json: #"{"row": "wifi", "isOn": false, "eventId": "e-1"}"#)
        api.store.close()
        // SHA-256 of "abc" (FIPS 180-2's example), lowercase hex.
        #expect(try TokenDigest.of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let digest = testDigest(token)
        switch kind {
        case .sqlite:
            let path = factory.directory.path + "/tabula.sqlite"
            let database = try SQLiteDatabase(path: path)
            for table in ["sessions", "events", "answers"] {
                let rows = try database.prepare("SELECT token_hash FROM \(table)").rows().compactMap { $0.first?.text }
                #expect(!rows.isEmpty && rows.allSatisfy { $0 == digest }, "\(table)")
            }
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
                #expect(try !Data(contentsOf: URL(fileURLWithPath: file)).contains(Data(token.utf8)), "\(file)")
            }
        default:
            let name = String(factory.databaseURL?.split(separator: "/").last ?? "")
            let cluster = try PostgresCluster.shared.get()
            for table in ["sessions", "events", "answers"] {
                let rows = try cluster.query("SELECT DISTINCT token_hash FROM \(table)", database: name)
                #expect(rows.trimmingCharacters(in: .whitespacesAndNewlines) == digest, "\(table)")
            }
            let dump = try cluster.query("SELECT string_agg(t::text, ' ') FROM (SELECT * FROM sessions) t", database: name)
            #expect(!dump.contains(token) && dump.contains("user-7"))
        }
    }

    /// A PostgreSQL database of schema version 2 (tokens in the clear, no ids) migrates at
    /// start: its sessions answer to their tokens and get ids, and it keeps only digests.
    @Test func postgresSessionsOfSchemaTwoAreMigrated() throws {
        let factory = try StoreFactory(.postgres)
        let url = try #require(factory.databaseURL)
        let token = String(repeating: "D", count: 32)
        do {
            let connection = try PostgresConnection(url: url)
            try connection.execute("CREATE TABLE tabula_schema (version BIGINT NOT NULL)")
            for (index, migration) in PostgresSchema.migrations.prefix(2).enumerated() {
                try migration.run(connection)
                try connection.execute("INSERT INTO tabula_schema(version) VALUES ($1)", [.integer(Int64(index + 1))])
            }
            let now = unixMilliseconds()
            try connection.execute(
                "INSERT INTO sessions VALUES ($1, 1, $2, $3, $3)", [.text(token), .bytes(Array(#"{"wifi":false}"#.utf8)), .integer(now)])
            for revision in 0...1 {
                try connection.execute(
                    "INSERT INTO events VALUES ($1, $2, NULL, 'switch', $3, $4, $5)",
                    [.text(token), .integer(Int64(revision)), .bytes(Array("{}".utf8)), .bytes(Array(#"{"wifi":\#(revision == 0)}"#.utf8)), .integer(now)])
            }
            try connection.execute(
                "INSERT INTO answers VALUES ($1, 'e', $2, 200, $3, $4)", [.text(token), .bytes([0]), .bytes(Array("{}".utf8)), .integer(now)])
        }
        let catalogue = try APITestServer.fixtures()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { $0.backendKey = APIKey(Self.key) }
        defer { api.store.close() }
        #expect(try api.revision(token) == 1)
        #expect(try api.send("GET", "/v1/screens/settings/changes?since=0", session: token).status == 200)
        let name = String(url.split(separator: "/").last ?? "")
        let cluster = try PostgresCluster.shared.get()
        let id = try cluster.query("SELECT id FROM sessions", database: name).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(SessionID.isWellFormed(id))
        #expect(try api.send("GET", "/v1/sessions/\(id)", headers: [Self.authorization]).json.objectValue?["revision"] == 1)
        for table in ["sessions", "events", "answers"] {
            let rows = try cluster.query("SELECT DISTINCT token_hash FROM \(table)", database: name)
            #expect(rows.trimmingCharacters(in: .whitespacesAndNewlines) == testDigest(token), "\(table)")
        }
        #expect(try cluster.query("SELECT MAX(version) FROM tabula_schema", database: name).contains("\(PostgresSchema.currentVersion)"))
    }
}

extension RawHTTPResponse {
    /// The slug of a problem document's type, if the body is one.
    var problemType: String? {
        (try? JSONParser().parse(body))?.objectValue?["type"]?.stringValue.map { String($0.dropFirst("urn:tabula:problem:".count)) }
    }
}
