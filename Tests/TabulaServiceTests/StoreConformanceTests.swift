import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaService
import TabulaTestSupport
import Testing

/// What every store must do, checked through the API on a live server.
@Suite(.serialized) struct StoreConformanceTests {
    func event(_ api: APITestServer, _ session: String, _ kind: String, _ json: String) throws -> RawHTTPResponse {
        try api.send("POST", "/v1/screens/settings/\(kind)", session: session, json: json)
    }

    @Test(arguments: StoreKind.allCases)
    func eventsCatchUpAndIdempotency(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try APITestServer(store: try factory.open(try APITestServer.fixtures()))
        defer { api.store.close() }
        let session = try api.newSession()
        let first = try event(api, session, "switch", #"{"row": "wifi", "isOn": false, "eventId": "a"}"#)
        #expect(first.status == 200 && first.json.objectValue?["toRevision"] == 1)
        _ = try event(api, session, "selection", #"{"row": "dark"}"#)
        let stale = try event(api, session, "selection", #"{"row": "light", "revision": 0}"#)
        #expect(stale.json.objectValue?["fromRevision"] == 0 && stale.json.objectValue?["toRevision"] == 3)
        #expect(try event(api, session, "switch", #"{"row": "wifi", "isOn": false, "eventId": "a"}"#).body == first.body)
        #expect(try event(api, session, "selection", #"{"row": "dark", "eventId": "a"}"#).status == 422)
        let changes = try api.send("GET", "/v1/screens/settings/changes?since=1", session: session)
        #expect(changes.status == 200 && changes.json.objectValue?["toRevision"] == 3)
        #expect(try event(api, session, "selection", #"{"row": "dark", "revision": 9}"#).status == 409)
        #expect(try api.revision(session) == 3)
        #expect(try api.send("GET", "/healthz").bodyText == #"{"status":"ok","store":"\#(kind.rawValue)"}"#)
        // Event ids are compared byte for byte: "café" composed and decomposed are two ids,
        // which Swift's `String` equality would take for one.
        let composed = try event(api, session, "switch", #"{"row": "wifi", "isOn": true, "eventId": "caf\u00e9"}"#)
        #expect(composed.status == 200 && composed.json.objectValue?["toRevision"] == 4, "\(composed.bodyText)")
        let decomposed = try event(api, session, "switch", #"{"row": "wifi", "isOn": false, "eventId": "cafe\u0301"}"#)
        #expect(decomposed.status == 200 && decomposed.json.objectValue?["toRevision"] == 5, "\(decomposed.bodyText)")
    }

    @Test(arguments: StoreKind.allCases)
    func keepsOnlyTheConfiguredRevisions(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        factory.settings.keepRevisions = 5
        let api = try APITestServer(store: try factory.open(try APITestServer.fixtures()))
        defer { api.store.close() }
        let session = try api.newSession()
        for index in 0..<12 {
            _ = try event(api, session, "switch", #"{"row": "bluetooth", "isOn": \#(index % 2 == 0)}"#)
        }
        #expect(try api.send("GET", "/v1/screens/settings/changes?since=6", session: session).status == 409)
        #expect(try api.send("GET", "/v1/screens/settings/changes?since=7", session: session).status == 200)
        let stale = try event(api, session, "selection", #"{"row": "dark", "revision": 3}"#)
        #expect(stale.status == 409 && stale.problemSlug == "stale-revision")
    }

    @Test(arguments: StoreKind.allCases)
    func sixteenConcurrentClientsLoseNothing(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let catalogue = try flipCatalogue()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        defer { api.store.close() }
        let session = try api.newSession()
        let (revisions, failures) = selectConcurrently(
            ports: [api.port], screen: "flip", row: "flip", session: session, clients: 16, events: 10)
        #expect(failures == [])
        #expect(revisions.sorted() == Array(1...160))
    }

    /// Sixteen retries of one event id at once (the SQLite store runs each body ahead of its
    /// writer): the event applies once and every retry gets the same answer.
    @Test(arguments: StoreKind.allCases)
    func concurrentRetriesOfOneEventIdApplyOnce(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try APITestServer(store: try factory.open(try APITestServer.fixtures()))
        defer { api.store.close() }
        let session = try api.newSession()
        let port = api.port
        // Wi-Fi starts on: the first burst is a no-op (an answer stored without a new
        // revision), the second a change.
        for (isOn, revision) in [(true, 0), (false, 1)] {
            let answers = Locked<[String]>([])
            concurrently(16) { _ in
                let body = #"{"row": "wifi", "isOn": \#(isOn), "eventId": "once-\#(isOn)"}"#
                let answer: String
                do {
                    let connection = try RawHTTPConnection(port: port, timeout: 30)
                    try connection.send(
                        "POST /v1/screens/settings/switch HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    )
                    let response = try connection.readResponse()
                    answer = "\(response.status) \(response.bodyText)"
                } catch {
                    answer = "\(error)"
                }
                answers.withLock { $0.append(answer) }
            }
            let collected = answers.withLock { $0 }
            #expect(collected.count == 16)
            #expect(Set(collected).count == 1, "\(Set(collected))")
            #expect(collected.first?.hasPrefix("200 ") == true)
            #expect(try api.revision(session) == revision)
        }
    }

    @Test(arguments: [StoreKind.sqlite, .postgres])
    func restartKeepsSessionsRevisionsAndAnswers(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let catalogue = try APITestServer.fixtures()
        var api: APITestServer? = try APITestServer(store: try factory.open(catalogue))
        let session = try api?.newSession() ?? ""
        let answer = try event(try #require(api), session, "switch", #"{"row": "wifi", "isOn": false, "eventId": "before-restart"}"#)
        _ = try event(try #require(api), session, "selection", #"{"row": "dark"}"#)
        api?.store.close()
        api = nil
        let restarted = try APITestServer(store: try factory.open(catalogue))
        defer { restarted.store.close() }
        #expect(try restarted.revision(session) == 2)
        let retry = try event(restarted, session, "switch", #"{"row": "wifi", "isOn": false, "eventId": "before-restart"}"#)
        #expect(retry.body == answer.body)
        let catchUp = try restarted.send("GET", "/v1/screens/settings/changes?since=0", session: session)
        #expect(catchUp.status == 200 && catchUp.json.objectValue?["toRevision"] == 2)
        #expect(try event(restarted, session, "selection", #"{"row": "light", "revision": 1}"#).json.objectValue?["toRevision"] == 3)
    }

    /// The versions a screen keeps are the ones served last, in the order they were served:
    /// not the order of their ids when reloads come within one tick of the clock, nor the
    /// clock's when it stepped back. A version served again is the newest once more.
    @Test(arguments: StoreKind.allCases)
    func definitionsServedLastAreKeptWhateverTheClockSays(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        factory.settings.keepDefinitions = 2
        let clock = Locked<Milliseconds>(1_000_000)
        factory.clock = { clock.withLock { $0 } }
        let store = try factory.open(try APITestServer.fixtures())
        defer { store.close() }
        // Ids in the order they are served: the first ones win a tie broken by id.
        let versions = ["v1", "v2", "v3", "v4", "v5"].map { KeptDefinition(id: $0, screen: "s", document: Array($0.utf8)) }
        func serve(_ index: Int) throws -> [String] { try store.keepDefinitions([versions[index]]) }
        #expect(try serve(0) == [])
        #expect(try serve(1) == [])
        #expect(try serve(2) == ["v1"], "three versions served within one millisecond")
        clock.withLock { $0 -= 60_000 }
        #expect(try serve(3) == ["v2"], "served after the clock stepped back")
        #expect(try serve(2) == [], "the version served again is one of the two kept")
        #expect(try serve(4) == ["v4"], "the version served again was newer than the one before it")
        for (id, kept) in [("v1", false), ("v2", false), ("v3", true), ("v4", false), ("v5", true)] {
            #expect(try wait { store.keptDefinition(id: id, completion: $0) }?.id == (kept ? id : nil), "\(id)")
        }
    }
}
