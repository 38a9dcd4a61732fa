import Foundation
import TabulaCore
import TabulaService
import TabulaTestSupport
import Testing

@Suite struct APITests {
    let api: APITestServer

    init() throws {
        api = try APITestServer()
    }

    func event(_ kind: String, _ session: String?, _ json: String, screen: String = "settings") throws -> RawHTTPResponse {
        try api.send("POST", "/v1/screens/\(screen)/\(kind)", session: session, json: json)
    }

    @Test func listsScreens() throws {
        let response = try api.send("GET", "/v1/screens")
        #expect(response.status == 200)
        let screens = response.json.objectValue?["screens"]?.arrayValue ?? []
        #expect(screens.count == 9)
        #expect(!screens.contains { $0.objectValue?["id"] == "people-details" }, "an item screen opens through navigation")
        #expect(screens.contains(["id": "settings", "title": "Settings"]))
    }

    @Test func createsSessionsWithLongRandomURLSafeTokens() throws {
        let response = try api.send("POST", "/v1/sessions")
        #expect(response.status == 201)
        #expect(response.header("Content-Type") == "application/json")
        let tokens = try (0..<50).map { _ in try api.newSession() }
        #expect(Set(tokens).count == 50)
        for token in tokens {
            #expect(token.count == 32)  // 192 bits in base64url
            #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }

    @Test func screenWithoutASessionIsTheDefaultStateAtRevisionZero() throws {
        let response = try api.send("GET", "/v1/screens/settings")
        #expect(response.status == 200)
        let golden = try Data(contentsOf: repositoryRoot.appendingPathComponent("Fixtures/expected/screens/settings.json"))
        #expect(response.body + [0x0A] == [UInt8](golden))
        #expect(response.json.objectValue?["revision"] == 0)
    }

    @Test func etagAndIfNoneMatchGive304() throws {
        let session = try api.newSession()
        let first = try api.send("GET", "/v1/screens/settings", session: session)
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let again = try api.send("GET", "/v1/screens/settings", session: session, headers: ["If-None-Match: \(etag)"])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.header("ETag") == etag)
        _ = try event("switch", session, #"{"row": "wifi", "isOn": false}"#)
        let changed = try api.send("GET", "/v1/screens/settings", session: session, headers: ["If-None-Match: \(etag)"])
        #expect(changed.status == 200)
        #expect(changed.header("ETag") != etag)
    }

    @Test func anEventAnswersWithTheChangeSetAndRaisesTheRevisionByOne() throws {
        let session = try api.newSession()
        let response = try event("switch", session, #"{"row": "wifi", "isOn": false, "revision": 0}"#)
        #expect(response.status == 200)
        let answer = try #require(response.json.objectValue)
        #expect(answer["screen"] == "settings")
        #expect(answer["fromRevision"] == 0)
        #expect(answer["toRevision"] == 1)
        #expect(answer["effects"] == [])
        let changes = try ChangeSet(json: try #require(answer["changes"]))
        #expect(changes.rows.deleted == [RowPath(section: 0, row: 1), RowPath(section: 0, row: 2)])
        #expect(changes.rows.updated.map(\.row.id) == ["wifi"])
        #expect(try api.revision(session) == 1)
    }

    @Test func anEventThatChangesNothingKeepsTheRevision() throws {
        let session = try api.newSession()
        let response = try event("switch", session, #"{"row": "wifi", "isOn": true}"#)
        #expect(response.status == 200)
        #expect(response.json.objectValue?["toRevision"] == 0)
        let navigate = try event("selection", session, #"{"row": "details"}"#)
        #expect(navigate.json.objectValue?["effects"] == [["type": "navigate", "screen": "about-details"]])
        #expect(navigate.json.objectValue?["toRevision"] == 0)
        #expect(try api.revision(session) == 0)
    }

    @Test func aStaleClientCatchesUpInTheSameAnswer() throws {
        let session = try api.newSession()
        _ = try event("switch", session, #"{"row": "wifi", "isOn": false}"#)
        _ = try event("selection", session, #"{"row": "dark"}"#)
        // A client still showing revision 0 selects Light: it gets everything since 0.
        let response = try event("selection", session, #"{"row": "light", "revision": 0}"#)
        #expect(response.status == 200)
        let answer = try #require(response.json.objectValue)
        #expect(answer["fromRevision"] == 0)
        #expect(answer["toRevision"] == 3)
        let initial = render(try #require(try APITestServer.fixtures().screen(id: "settings")), try APITestServer.fixtures().initialState)
        let changes = try ChangeSet(json: try #require(answer["changes"]))
        let shown = try api.send("GET", "/v1/screens/settings", session: session)
        var expected = try Screen(jsonBytes: shown.body)
        expected.revision = 0
        #expect(try changes.applyChecked(to: initial) == expected)
    }

    @Test func changesSinceARevision() throws {
        let session = try api.newSession()
        _ = try event("switch", session, #"{"row": "wifi", "isOn": false}"#)
        _ = try event("selection", session, #"{"row": "dark"}"#)
        let response = try api.send("GET", "/v1/screens/settings/changes?since=1", session: session)
        #expect(response.status == 200)
        let answer = try #require(response.json.objectValue)
        #expect(answer["fromRevision"] == 1 && answer["toRevision"] == 2 && answer["screen"] == "settings")
        let changes = try ChangeSet(json: try #require(answer["changes"]))
        #expect(changes.rows.updated.map(\.row.id) == ["dark", "auto"])
        let none = try api.send("GET", "/v1/screens/settings/changes?since=2", session: session)
        #expect(try ChangeSet(json: try #require(none.json.objectValue?["changes"])).isEmpty)
        let noSession = try api.send("GET", "/v1/screens/settings/changes?since=0")
        #expect(noSession.status == 200 && noSession.json.objectValue?["toRevision"] == 0)
    }

    @Test(arguments: ["", "since=", "since=-1", "since=abc", "since=1.5", "since=99999999999999999999999", "since=%zz", "other=1"])
    func badSinceIs400(query: String) throws {
        let session = try api.newSession()
        let response = try api.send("GET", "/v1/screens/settings/changes" + (query.isEmpty ? "" : "?" + query), session: session)
        #expect(response.status == 400)
        #expect(response.problemSlug == "invalid-query")
    }

    @Test func indexPathEventsResolveAtTheClientsRevision() throws {
        let session = try api.newSession()
        // At revision 0, [0, 1] is network-home; Wi-Fi off (revision 1) hides it.
        _ = try event("switch", session, #"{"row": "wifi", "isOn": false}"#)
        _ = try event("switch", session, #"{"row": "wifi", "isOn": true}"#)
        let response = try event("deletion", session, #"{"indexPath": {"section": 0, "row": 1}, "revision": 0, "definition": "\#(settingsDefinition)"}"#)
        #expect(response.status == 200)
        #expect(response.json.objectValue?["toRevision"] == 3)
        let screen = try Screen(jsonBytes: try api.send("GET", "/v1/screens/settings", session: session).body)
        #expect(screen.path(ofRow: "network-home") == nil)
        #expect(screen.path(ofRow: "network-cafe") != nil)
        // At revision 1 (Wi-Fi off) [0, 1] is Bluetooth, which has no onDelete.
        let atOne = try event("deletion", session, #"{"indexPath": {"section": 0, "row": 1}, "revision": 1, "definition": "\#(settingsDefinition)"}"#)
        #expect(atOne.status == 422)
        let needsRevision = try event("deletion", session, #"{"indexPath": {"section": 0, "row": 1}, "definition": "\#(settingsDefinition)"}"#)
        #expect(needsRevision.status == 400)
        let needsDefinition = try event("deletion", session, #"{"indexPath": {"section": 0, "row": 1}, "revision": 3}"#)
        #expect(needsDefinition.status == 400)
        let outOfRange = try event("selection", session, #"{"indexPath": {"section": 7, "row": 0}, "revision": 3, "definition": "\#(settingsDefinition)"}"#)
        #expect(outOfRange.status == 404)
        #expect(outOfRange.problemSlug == "unknown-row")
    }

    @Test func retryingAnEventIDReturnsTheFirstAnswerAndChangesNothing() throws {
        let session = try api.newSession()
        let first = try event("switch", session, #"{"row": "wifi", "isOn": false, "eventId": "e-1"}"#)
        #expect(first.status == 200)
        _ = try event("selection", session, #"{"row": "dark"}"#)
        let retry = try event("switch", session, #"{"row": "wifi", "isOn": false, "eventId": "e-1"}"#)
        #expect(retry.status == 200)
        #expect(retry.body == first.body)
        #expect(try api.revision(session) == 2)
        let reused = try event("selection", session, #"{"row": "light", "eventId": "e-1"}"#)
        #expect(reused.status == 422)
        #expect(reused.problemSlug == "event-id-reused")
        #expect(try api.revision(session) == 2)
        // Ids are per session.
        let other = try api.newSession()
        #expect(try event("switch", other, #"{"row": "wifi", "isOn": false, "eventId": "e-1"}"#).json.objectValue?["toRevision"] == 1)
    }

    @Test func aRetriedNoOpEventAlsoReplays() throws {
        let session = try api.newSession()
        let first = try event("selection", session, #"{"row": "details", "eventId": "nav"}"#)
        _ = try event("switch", session, #"{"row": "bluetooth", "isOn": true}"#)
        let retry = try event("selection", session, #"{"row": "details", "eventId": "nav"}"#)
        #expect(retry.body == first.body)
    }

    /// (request, status, problem slug): every failure leaves the session untouched.
    static let failures: [(kind: String, body: String, contentType: String?, status: Int, slug: String)] = [
        ("switch", "{", "application/json", 400, "malformed-json"),
        ("switch", "[]", "application/json", 400, "invalid-body"),
        ("switch", #"{"row": 3, "isOn": true}"#, "application/json", 400, "invalid-body"),
        ("switch", #"{"row": "wifi", "isOn": "yes"}"#, "application/json", 400, "invalid-body"),
        ("switch", #"{"row": "wifi"}"#, "application/json", 400, "invalid-body"),
        ("switch", #"{"row": "wifi", "isOn": true, "revision": -1}"#, "application/json", 400, "invalid-body"),
        ("switch", #"{"row": "wifi", "isOn": true, "extra": 1}"#, "application/json", 400, "invalid-body"),
        ("selection", #"{"row": "dark", "isOn": true}"#, "application/json", 400, "invalid-body"),
        ("selection", #"{}"#, "application/json", 400, "invalid-body"),
        ("selection", #"{"row": "dark", "indexPath": {"section": 0, "row": 0}, "revision": 0}"#, "application/json", 400, "invalid-body"),
        ("selection", #"{"row": "dark", "eventId": ""}"#, "application/json", 400, "invalid-body"),
        ("selection", #"{"row": "dark"}"#, "text/plain", 415, "unsupported-media-type"),
        ("selection", #"{"row": "dark"}"#, nil, 415, "unsupported-media-type"),
        ("selection", #"{"row": "nope"}"#, "application/json", 404, "unknown-row"),
        ("selection", #"{"row": "dark", "revision": 5}"#, "application/json", 409, "future-revision"),
        ("switch", #"{"row": "dark", "isOn": true}"#, "application/json", 422, "event-not-applicable"),
        ("selection", #"{"row": "version"}"#, "application/json", 422, "event-not-applicable"),
        ("deletion", #"{"row": "wifi"}"#, "application/json", 422, "event-not-applicable"),
    ]

    @Test(arguments: 0..<failures.count)
    func failuresHaveTheirStatusAndChangeNothing(index: Int) throws {
        let failure = Self.failures[index]
        let session = try api.newSession()
        _ = try event("selection", session, #"{"row": "dark"}"#)
        let before = try api.send("GET", "/v1/screens/settings", session: session).body
        let response = try api.send("POST", "/v1/screens/settings/\(failure.kind)", session: session, json: failure.body, contentType: failure.contentType)
        #expect(response.status == failure.status, "\(failure.body)")
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response.problemSlug == failure.slug)
        #expect(response.json.objectValue?["status"]?.intValue == failure.status)
        #expect((response.json.objectValue?["detail"]?.stringValue ?? "").count > 10)
        #expect(try api.send("GET", "/v1/screens/settings", session: session).body == before)
    }

    @Test func hiddenRowsAreNotApplicable() throws {
        let session = try api.newSession()
        _ = try event("switch", session, #"{"row": "wifi", "isOn": false}"#)
        let response = try event("deletion", session, #"{"row": "network-home"}"#)
        #expect(response.status == 422)
        #expect(response.json.objectValue?["detail"]?.stringValue?.contains("hidden") == true)
    }

    @Test func staleRevisionBeyondWhatIsKeptIs409() throws {
        let session = try api.newSession()
        for index in 0..<102 {
            _ = try event("switch", session, index % 2 == 0 ? #"{"row": "bluetooth", "isOn": true}"# : #"{"row": "bluetooth", "isOn": false}"#)
        }
        let response = try event("selection", session, #"{"row": "dark", "revision": 0}"#)
        #expect(response.status == 409)
        #expect(response.problemSlug == "stale-revision")
        #expect(response.json.objectValue?["currentRevision"] == 102)
        let changes = try api.send("GET", "/v1/screens/settings/changes?since=1", session: session)
        #expect(changes.status == 409 && changes.problemSlug == "stale-revision")
        // A catch-up gets the whole screen in its problem; an event does not (it changed nothing).
        let screen = try api.send("GET", "/v1/screens/settings", session: session)
        #expect(changes.json.objectValue?["currentScreen"] == screen.json)
        #expect(response.json.objectValue?["currentScreen"] == nil)
        #expect(try api.send("GET", "/v1/screens/settings/changes?since=2", session: session).status == 200)
        #expect(try api.revision(session) == 102)
    }

    @Test func sessionsAreRequiredForEventsAndMustExist() throws {
        let missing = try event("selection", nil, #"{"row": "dark"}"#)
        #expect(missing.status == 401 && missing.problemSlug == "missing-session")
        let unknown = try event("selection", String(repeating: "A", count: 32), #"{"row": "dark"}"#)
        #expect(unknown.status == 401 && unknown.problemSlug == "unknown-session")
        let malformed = try event("selection", "not a token", #"{"row": "dark"}"#)
        #expect(malformed.status == 401)
        let fetch = try api.send("GET", "/v1/screens/settings", session: String(repeating: "B", count: 32))
        #expect(fetch.status == 401)
        let changes = try api.send("GET", "/v1/screens/settings/changes?since=0", session: String(repeating: "B", count: 32))
        #expect(changes.status == 401)
    }

    @Test func unknownScreensAre404() throws {
        let session = try api.newSession()
        #expect(try api.send("GET", "/v1/screens/nope").status == 404)
        #expect(try api.send("GET", "/v1/screens/nope/changes?since=0").status == 404)
        let response = try event("selection", session, #"{"row": "dark"}"#, screen: "nope")
        #expect(response.status == 404 && response.problemSlug == "unknown-screen")
    }

    @Test func wrongMethodsAre405WithAllow() throws {
        let response = try api.send("DELETE", "/v1/screens/settings")
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
        let events = try api.send("GET", "/v1/screens/settings/switch")
        #expect(events.status == 405 && events.header("Allow") == "POST")
        #expect(try api.send("PUT", "/v1/sessions").header("Allow") == "POST")
    }

    /// The HTTP layer's limit: over the socket.
    @Test func bodiesOverTheLimitAre413() throws {
        let small = try APITestServer(maxBody: 256)
        let session = try small.newSession()
        let response = try small.send(
            "POST", "/v1/screens/settings/selection", session: session,
            json: #"{"row": "\#(String(repeating: "x", count: 300))"}"#, over: .socket)
        #expect(response.status == 413)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(try small.revision(session) == 0)
    }

    @Test func queryStringsOnEventRoutesAre400() throws {
        let session = try api.newSession()
        let response = try api.send("POST", "/v1/screens/settings/selection?row=dark", session: session, json: #"{"row": "dark"}"#)
        #expect(response.status == 400 && response.problemSlug == "invalid-query")
    }

    @Test func stateIsSharedByTheScreensOfASession() throws {
        let session = try api.newSession()
        _ = try event("switch", session, #"{"row": "wifi", "isOn": false}"#)
        let about = try api.send("GET", "/v1/screens/about-details", session: session)
        #expect(about.json.objectValue?["revision"] == 1)
        #expect(about.bodyText.contains(#""leftTitle":"Wi-Fi","movable":false,"rightTitle":"Off""#))
    }
}
