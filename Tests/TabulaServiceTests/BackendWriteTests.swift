import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaSamples
import TabulaTestSupport
import Testing

@testable import TabulaService

/// The backend's writes of a session's state: JSON Merge Patch, JSON Patch and PUT under
/// If-Match, with Idempotency-Key, on every store. Every refusal leaves the state, the
/// revision and what clients see as they were; every write reaches clients as change sets.
@Suite struct BackendWriteTests {
    static let authorization = BackendAPITests.authorization
    static let merge = "application/merge-patch+json"
    static let jsonPatch = "application/json-patch+json"

    /// A server on a fresh store and one session created with two networks: its token and id.
    func setUp(_ kind: StoreKind, limits: StateLimits = StateLimits()) throws -> (APITestServer, token: String, id: String) {
        let factory = try StoreFactory(kind)
        let catalogue = try APITestServer.fixtures()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(BackendAPITests.key)
            configuration.stateLimits = limits
        }
        let created = try api.send(
            "POST", "/v1/sessions", headers: [Self.authorization],
            json:
                #"{"subject": "u-1", "state": {"networks": [{"id": "home", "name": "Home", "secure": true}, {"id": "office", "name": "Office", "secure": false}]}}"#
        )
        let body = try #require(created.json.objectValue)
        return (api, try #require(body["session"]?.stringValue), try #require(body["id"]?.stringValue))
    }

    func write(
        _ api: APITestServer, _ id: String, _ body: String, method: String = "PATCH", type: String = merge, ifMatch: String? = nil,
        key: String? = nil
    ) throws -> RawHTTPResponse {
        var headers = [Self.authorization]
        if let ifMatch { headers.append("If-Match: \(ifMatch)") }
        if let key { headers.append("Idempotency-Key: \(key)") }
        return try api.send(method, "/v1/sessions/\(id)/state", headers: headers, json: body, contentType: type)
    }

    func record(_ api: APITestServer, _ id: String) throws -> JSONObject {
        try #require(try api.send("GET", "/v1/sessions/\(id)", headers: [Self.authorization]).json.objectValue)
    }

    /// A backend's write is use of its session on every store, as a client's event is:
    /// `lastUsedAt` moves, and `--session-ttl` counts from it. The memory store used to
    /// count a client's commits only.
    @Test(arguments: StoreKind.allCases)
    func aBackendsWriteIsUseOfTheSession(_ kind: StoreKind) throws {
        let (api, _, id) = try setUp(kind)
        defer { api.store.close() }
        let before = try #require(try record(api, id)["lastUsedAt"]?.stringValue)
        usleep(20_000)
        let written = try api.send(
            "PATCH", "/v1/sessions/\(id)/state", headers: [Self.authorization, "If-Match: *", "Content-Type: \(Self.merge)"],
            json: #"{"wifi": false}"#, contentType: nil)
        #expect(written.status == 200, "\(written.bodyText)")
        let after = try #require(try record(api, id)["lastUsedAt"]?.stringValue)
        #expect(after > before, "\(before) → \(after)")
    }

    /// The client's copy brought forward with `changes?since=` equals the screen it fetches.
    func expectClientCatchesUp(_ api: APITestServer, _ token: String, from copy: Screen, _ comment: Comment? = nil) throws -> Screen {
        let answer = try api.send("GET", "/v1/screens/settings/changes?since=\(copy.revision)&definition=\(copy.definition ?? "")", session: token)
        let object = try #require(answer.json.objectValue)
        let changes = try ChangeSet(json: try #require(object["changes"]))
        var next = try changes.applyChecked(to: copy)
        next.revision = try #require(object["toRevision"]?.intValue)
        let fetched = try Screen(jsonBytes: try api.send("GET", "/v1/screens/settings", session: token).body)
        #expect(next == fetched, comment)
        return fetched
    }

    /// The state a backend reads is values only, whatever the service keeps beside them
    /// (the client context, touched marks): sent back as it was read, a `PUT` takes it.
    @Test(arguments: StoreKind.allCases)
    func aStateReadBackIsOneAPutTakes(_ kind: StoreKind) throws {
        let (api, _, id) = try setUp(kind)
        defer { api.store.close() }
        let created = try api.send("POST", "/v1/sessions", json: #"{"client": {"locale": "fr", "kinds": ["basic", "titleSwitch"]}}"#)
        let other = try #require(created.json.objectValue?["id"]?.stringValue)
        for session in [id, other] {
            let state = try #require(try record(api, session)["state"])
            #expect(state.objectValue?.keys.allSatisfy { !$0.hasPrefix("$") } == true, "\(state.canonicalText.prefix(200))")
            let put = try write(api, session, state.canonicalText, method: "PUT", type: "application/json", ifMatch: #""0""#)
            #expect(put.status == 200, "\(put.bodyText)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func patchesReachTheClientAsChangeSets(_ kind: StoreKind) throws {
        let (api, token, id) = try setUp(kind)
        defer { api.store.close() }
        var copy = try Screen(jsonBytes: try api.send("GET", "/v1/screens/settings", session: token).body)
        #expect(copy.path(ofRow: "network-office") != nil)

        let merged = try write(api, id, #"{"bluetooth": true, "networks": [{"id": "cafe", "name": "Café", "secure": false}]}"#, ifMatch: #""0""#)
        #expect(merged.status == 200 && merged.bodyText == #"{"fromRevision":0,"toRevision":1}"#)
        #expect(merged.header("ETag") == #""1""#)
        copy = try expectClientCatchesUp(api, token, from: copy, "merge patch")
        #expect(copy.path(ofRow: "network-cafe") != nil && copy.path(ofRow: "network-office") == nil)

        let added = try write(
            api, id,
            #"[{"op": "test", "path": "/networks/0/id", "value": "cafe"}, {"op": "add", "path": "/networks/-", "value": {"id": "lab", "name": "Lab", "secure": true}}]"#,
            type: Self.jsonPatch, ifMatch: #""1""#)
        #expect(added.status == 200 && added.header("ETag") == #""2""#)
        copy = try expectClientCatchesUp(api, token, from: copy, "json patch add")
        #expect(copy.path(ofRow: "network-lab") != nil)

        let moved = try write(
            api, id,
            #"[{"op": "move", "from": "/networks/1", "path": "/networks/0"}, {"op": "copy", "from": "/wifi", "path": "/bluetooth"}, {"op": "replace", "path": "/networks/1/name", "value": "Corner Café"}, {"op": "remove", "path": "/appearance"}]"#,
            type: Self.jsonPatch, ifMatch: #""2""#)
        #expect(moved.status == 200, "\(moved.bodyText)")
        copy = try expectClientCatchesUp(api, token, from: copy, "move, copy, replace, remove")
        let state = try #require(try record(api, id)["state"]?.objectValue)
        #expect(state["networks"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == ["lab", "cafe"])
        #expect(state["appearance"]?.stringValue == "automatic")  // removed: back to its default

        // A write that changes nothing leaves the revision, and sends nothing to clients.
        let same = try write(api, id, #"{"wifi": true}"#, ifMatch: #""3""#)
        #expect(same.status == 200 && same.bodyText == #"{"fromRevision":3,"toRevision":3}"#)
        #expect(try record(api, id)["revision"] == 3)

        // PUT: the whole state, keys not given at their defaults.
        let put = try write(api, id, #"{"wifi": false}"#, method: "PUT", type: "application/json", ifMatch: #""3""#)
        #expect(put.status == 200 && put.header("ETag") == #""4""#)
        copy = try expectClientCatchesUp(api, token, from: copy, "put")
        let replaced = try #require(try record(api, id)["state"]?.objectValue)
        #expect(replaced["wifi"] == false && replaced["networks"]?.arrayValue?.count == 2)  // the catalogue's default networks
        #expect(try record(api, id)["subject"]?.stringValue == "u-1")

        // JSON Patch replaces the whole state at the empty pointer, as `add` does (RFC 6902).
        let root = try write(api, id, #"[{"op": "replace", "path": "", "value": {"wifi": true}}]"#, type: Self.jsonPatch, ifMatch: #""4""#)
        #expect(root.status == 200 && root.header("ETag") == #""5""#, "\(root.bodyText)")
        copy = try expectClientCatchesUp(api, token, from: copy, "json patch replace of the whole state")
        #expect(try record(api, id)["state"]?.objectValue?["wifi"] == true)
    }

    /// Each refusal with its status and type; none changes the state, the revision or what
    /// the client sees.
    @Test(arguments: StoreKind.allCases)
    func refusedWritesChangeNothing(_ kind: StoreKind) throws {
        let (api, token, id) = try setUp(kind, limits: StateLimits(maxStateBytes: 4096, maxListLength: 4))
        defer { api.store.close() }
        let before = try record(api, id)
        let screen = try api.send("GET", "/v1/screens/settings", session: token).bodyText
        let cases: [(method: String, body: String, type: String, ifMatch: String?, status: Int, problem: String, path: String?)] = [
            ("PATCH", #"{"wifi": false}"#, Self.merge, nil, 428, "precondition-required", nil),
            ("PATCH", #"{"wifi": false}"#, Self.merge, #""7""#, 412, "precondition-failed", nil),
            ("PATCH", #"{"wifi": false}"#, Self.merge, #"W/"0""#, 412, "precondition-failed", nil),
            // Strong comparison is of the tag's characters: "00" and "+0" are not "0".
            ("PATCH", #"{"wifi": false}"#, Self.merge, #""00""#, 412, "precondition-failed", nil),
            ("PATCH", #"{"wifi": false}"#, Self.merge, #""+0""#, 412, "precondition-failed", nil),
            ("PATCH", #"{"wifi": false}"#, Self.merge, "0", 400, "invalid-header", nil),
            ("PATCH", #"{"wifi": false}"#, Self.merge, #"*, "0""#, 400, "invalid-header", nil),
            ("PATCH", #"{"wifi": false}"#, Self.merge, "*, *", 400, "invalid-header", nil),
            ("PATCH", #"{"wifi": false}"#, "application/json", #""0""#, 415, "unsupported-media-type", nil),
            ("PUT", #"{"wifi": false}"#, Self.merge, #""0""#, 415, "unsupported-media-type", nil),
            ("PATCH", #"{"wifi": "no"}"#, Self.merge, #""0""#, 422, "invalid-state", "$.wifi"),
            ("PATCH", #"{"wify": true}"#, Self.merge, #""0""#, 422, "invalid-state", "$.wify"),
            ("PATCH", #"{"networks": [{"id": "x", "name": 3, "secure": true}]}"#, Self.merge, #""0""#, 422, "invalid-state", "$.networks[0].name"),
            ("PATCH", #"[1]"#, Self.merge, #""0""#, 422, "invalid-state", "$"),
            (
                "PATCH", #"[{"op": "add", "path": "/networks/-", "value": {"id": "\#(String(repeating: "n", count: 1025))", "name": "N", "secure": true}}]"#,
                Self.jsonPatch, #""0""#, 422, "invalid-state", "$.networks[2].id"
            ),
            ("PUT", #"{"wifi": false, "extra": 1}"#, "application/json", #""0""#, 422, "invalid-state", "$.extra"),
            (
                "PATCH", #"[{"op": "test", "path": "/wifi", "value": false}, {"op": "replace", "path": "/wifi", "value": false}]"#, Self.jsonPatch,
                #""0""#, 409, "patch-test-failed", "/wifi"
            ),
            ("PATCH", #"[{"op": "remove", "path": "/networks/5"}]"#, Self.jsonPatch, #""0""#, 422, "patch-not-applicable", "/networks/5"),
            ("PATCH", #"[{"op": "add", "path": "/nothing/x", "value": 1}]"#, Self.jsonPatch, #""0""#, 422, "patch-not-applicable", "/nothing/x"),
            ("PATCH", #"[{"op": "move", "from": "/networks", "path": "/networks/0"}]"#, Self.jsonPatch, #""0""#, 422, "patch-not-applicable", nil),
            ("PATCH", #"[{"op": "jump", "path": "/wifi"}]"#, Self.jsonPatch, #""0""#, 400, "invalid-body", nil),
            ("PATCH", #"[{"op": "add", "path": "wifi", "value": 1}]"#, Self.jsonPatch, #""0""#, 400, "invalid-body", nil),
            ("PATCH", #"{"op": "add"}"#, Self.jsonPatch, #""0""#, 400, "invalid-body", nil),
            ("PATCH", #"{"wifi": "#, Self.merge, #""0""#, 400, "malformed-json", nil),
            (
                "PATCH",
                #"{"networks": [{"id": "a", "name": "A", "secure": true}, {"id": "b", "name": "B", "secure": true}, {"id": "c", "name": "C", "secure": true}, {"id": "d", "name": "D", "secure": true}, {"id": "e", "name": "E", "secure": true}]}"#,
                Self.merge, #""0""#, 422, "list-too-long", nil
            ),
            ("PATCH", #"{"appearance": "\#(String(repeating: "x", count: 5000))"}"#, Self.merge, #""0""#, 422, "state-too-large", nil),
        ]
        for example in cases {
            let response = try write(api, id, example.body, method: example.method, type: example.type, ifMatch: example.ifMatch)
            let label = "\(example.method) \(example.body.prefix(50)) \(example.ifMatch ?? "-"): \(response.bodyText.prefix(300))"
            #expect(response.status == example.status && response.problemType == example.problem, "\(label)")
            if let path = example.path { #expect(response.json.objectValue?["path"]?.stringValue == path, "\(label)") }
            if example.status == 412 { #expect(response.json.objectValue?["currentRevision"] == 0, "\(label)") }
            if example.ifMatch?.hasPrefix("W/") == true {
                #expect(response.bodyText.contains(#"the weak tag W/\"0\" never matches"#), "a weak tag of the revision says why: \(label)")
            }
        }
        #expect(try write(api, "s_aaaaaaaaaaaaaaaaaaaa", #"{"wifi": false}"#, ifMatch: #""0""#).status == 404)
        let unauthorized = try api.send("PATCH", "/v1/sessions/\(id)/state", headers: [#"If-Match: "0""#], json: #"{"wifi": false}"#, contentType: Self.merge)
        #expect(unauthorized.status == 401)
        #expect(try record(api, id) == before)
        #expect(try api.send("GET", "/v1/screens/settings", session: token).bodyText == screen)
        // `*` admits any revision.
        #expect(try write(api, id, #"{"wifi": false}"#, ifMatch: "*").status == 200)
    }

    /// A retry with the same Idempotency-Key gets the first answer byte for byte, even with
    /// the first attempt's (now stale) If-Match, and writes nothing; the key with another
    /// write is 422.
    @Test(arguments: StoreKind.allCases)
    func idempotencyKeysReplayTheFirstAnswer(_ kind: StoreKind) throws {
        let (api, _, id) = try setUp(kind)
        defer { api.store.close() }
        let first = try write(api, id, #"{"bluetooth": true}"#, ifMatch: #""0""#, key: "k-1")
        #expect(first.status == 200 && first.header("ETag") == #""1""#)
        let retry = try write(api, id, #"{"bluetooth": true}"#, ifMatch: #""0""#, key: "k-1")
        #expect(retry.status == 200 && retry.body == first.body && retry.header("ETag") == #""1""#)
        #expect(try record(api, id)["revision"] == 1)
        // The same write after re-reading the revision is still the first one.
        let reread = try write(api, id, #"{"bluetooth": true}"#, ifMatch: #""1""#, key: "k-1")
        #expect(reread.status == 200 && reread.body == first.body)
        let reused = try write(api, id, #"{"bluetooth": false}"#, ifMatch: #""1""#, key: "k-1")
        #expect(reused.status == 422 && reused.problemType == "idempotency-key-reused")
        // A write that changed nothing is replayed too.
        let unchanged = try write(api, id, #"{"bluetooth": true}"#, ifMatch: #""1""#, key: "k-2")
        #expect(unchanged.bodyText == #"{"fromRevision":1,"toRevision":1}"#)
        #expect(try write(api, id, #"{"bluetooth": true}"#, ifMatch: #""1""#, key: "k-2").body == unchanged.body)
        // A failed write stores nothing: retrying it tries again.
        #expect(try write(api, id, #"{"bluetooth": 1}"#, ifMatch: #""1""#, key: "k-3").status == 422)
        #expect(try write(api, id, #"{"wifi": false}"#, ifMatch: #""1""#, key: "k-3").status == 200)
        // Event ids cannot reach the backend's keys.
        let event = try api.send(
            "POST", "/v1/screens/settings/selection", session: try api.newSession(), json: #"{"row": "wifi", "eventId": "\u0001k-1"}"#)
        #expect(event.status == 400 && event.problemType == "invalid-body")
        #expect(try write(api, id, "{}", ifMatch: #""2""#, key: String(repeating: "k", count: 201)).problemType == "invalid-header")
        #expect(try write(api, id, "{}", ifMatch: #""2""#, key: "k\u{1}4").problemType == "invalid-header")
    }

    /// 16 backends write one session at once, each reading the revision first: exactly one
    /// write succeeds per revision, and none is lost.
    @Test(arguments: StoreKind.allCases)
    func concurrentBackendsLoseNoUpdate(_ kind: StoreKind) throws {
        let (api, _, id) = try setUp(kind, limits: StateLimits(maxListLength: 1000))
        defer { api.store.close() }
        let backends = 16
        let writesEach = 3
        let successes = Locked<[Int]>([])
        let failures = Locked<[String]>([])
        let port = api.port
        concurrently(backends) { backend in
            var written = 0
            var attempts = 0
            while written < writesEach && attempts < 500 {
                attempts += 1
                do {
                    let read = try Self.request(port, "GET", "/v1/sessions/\(id)", headers: [Self.authorization])
                    guard let revision = read.json.objectValue?["revision"]?.intValue else {
                        failures.withLock { $0.append("GET \(read.status) \(read.bodyText)") }
                        continue
                    }
                    let response = try Self.request(
                        port, "PATCH", "/v1/sessions/\(id)/state",
                        headers: [Self.authorization, "If-Match: \"\(revision)\"", "Content-Type: \(Self.jsonPatch)"],
                        body: #"[{"op": "add", "path": "/networks/-", "value": {"id": "b\#(backend)-\#(written)", "name": "N", "secure": true}}]"#)
                    switch response.status {
                    case 200:
                        successes.withLock { $0.append(response.json.objectValue?["toRevision"]?.intValue ?? -1) }
                        written += 1
                    case 412: continue
                    default: failures.withLock { $0.append("\(response.status) \(response.bodyText)") }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        let revisions = successes.withLock { $0 }.sorted()
        #expect(revisions == Array(1...(backends * writesEach)))
        let networks = try #require(try record(api, id)["state"]?.objectValue?["networks"]?.arrayValue)
        #expect(networks.count == 2 + backends * writesEach)
    }

    /// One request on a new connection, from any thread.
    static func request(_ port: UInt16, _ method: String, _ path: String, headers: [String], body: String? = nil) throws -> RawHTTPResponse {
        let connection = try RawHTTPConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined()
        head += "Content-Length: \(body?.utf8.count ?? 0)\r\n\r\n" + (body ?? "")
        try connection.send(head)
        return try connection.readResponse()
    }

    /// A client's events and the backend's patches interleaved on one session: every change
    /// set the client receives applies to its copy, which stays the server's screen.
    @Test(arguments: StoreKind.allCases)
    func patchesInterleavedWithClientEventsKeepTheClientExact(_ kind: StoreKind) throws {
        let (api, token, id) = try setUp(kind)
        defer { api.store.close() }
        var copy = try Screen(jsonBytes: try api.send("GET", "/v1/screens/settings", session: token).body)
        var random = SplitMix64(seed: 41)
        for step in 0..<40 {
            if random.next() % 2 == 0 {
                let revision = try #require(try record(api, id)["revision"]?.intValue)
                let body: String
                switch random.next() % 3 {
                case 0: body = #"{"bluetooth": \#(random.next() % 2 == 0)}"#
                case 1:
                    body =
                        #"{"networks": [{"id": "n\#(step)", "name": "Net \#(step)", "secure": \#(random.next() % 2 == 0)}, {"id": "home", "name": "Home", "secure": true}]}"#
                default: body = #"{"wifi": \#(random.next() % 4 != 0)}"#
                }
                #expect(try write(api, id, body, ifMatch: "\"\(revision)\"").status == 200, "step \(step)")
            } else {
                // The client's event, sent from its copy (it has not seen the patch yet): the
                // answer's change set takes it to the current screen.
                let rows = copy.sections.flatMap(\.rows).filter { $0.id == "wifi" || $0.id == "bluetooth" }
                guard let row = rows.randomElement(using: &random) else { continue }
                let answer = try api.send(
                    "POST", "/v1/screens/settings/switch", session: token,
                    json:
                        #"{"row": "\#(row.id)", "isOn": \#(random.next() % 2 == 0), "revision": \#(copy.revision), "definition": "\#(copy.definition ?? "")"}"#)
                let object = try #require(answer.json.objectValue, "step \(step): \(answer.bodyText)")
                var next = try ChangeSet(json: try #require(object["changes"])).applyChecked(to: copy)
                next.revision = try #require(object["toRevision"]?.intValue)
                copy = next
                let fetched = try Screen(jsonBytes: try api.send("GET", "/v1/screens/settings", session: token).body)
                #expect(copy == fetched, "step \(step)")
                copy = fetched
            }
        }
        _ = try expectClientCatchesUp(api, token, from: copy, "at the end")
    }
}
