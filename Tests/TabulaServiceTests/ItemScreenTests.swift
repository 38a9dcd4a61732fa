import Foundation
import TabulaCore
import TabulaTestSupport
import Testing

@testable import TabulaService

/// Item screens on each store: `people` → `people-details?item=ID`, the screen's routes
/// with `?item=`, events that change and remove the item, streams that end when the item
/// leaves its list, and event ids per session.
@Suite struct ItemScreenTests {
    func server(_ factory: StoreFactory) throws -> APITestServer {
        let catalogue = try APITestServer.fixtures()
        return try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(BackendAPITests.key)
        }
    }

    func event(_ api: APITestServer, _ kind: String, _ token: String, item: String?, _ body: String) throws -> RawHTTPResponse {
        let query = item.map { "?item=\($0)" } ?? ""
        return try api.send("POST", "/v1/screens/people-details/\(kind)\(query)", session: token, json: body)
    }

    @Test(arguments: StoreKind.allCases)
    func aPersonOpensTheirOwnScreen(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let (token, _) = try api.newBackendSession()
        // A tap on a person navigates to their screen, naming them.
        let tap = try api.send("POST", "/v1/screens/people/selection", session: token, json: #"{"row": "person-alex-great"}"#)
        #expect(tap.status == 200)
        #expect(tap.json.objectValue?["effects"] == [["item": "alex-great", "screen": "people-details", "type": "navigate"]])
        let screen = try api.send("GET", "/v1/screens/people-details?item=alex-great", session: token)
        #expect(screen.status == 200, "\(screen.bodyText)")
        let decoded = try Screen(jsonBytes: screen.body)
        #expect(decoded.item == "alex-great" && decoded.title == "Alex Great")
        #expect(decoded.sections[0].rows.map(\.content).first == .leftRightTitles(leftTitle: "First name", rightTitle: "Alex"))
        // Another person, another screen and ETag; without a session, the default state's.
        let john = try api.send("GET", "/v1/screens/people-details?item=john-doe", session: token)
        #expect(try Screen(jsonBytes: john.body).title == "John Doe" && john.header("ETag") != screen.header("ETag"))
        #expect(try api.send("GET", "/v1/screens/people-details?item=john-wayne").status == 200)
        for (path, status, slug) in [
            ("/v1/screens/people-details", 404, "unknown-item"),
            ("/v1/screens/people-details?item=", 404, "unknown-item"),
            ("/v1/screens/people-details?item=nobody", 404, "unknown-item"),
            ("/v1/screens/people-details/changes?since=0", 404, "unknown-item"),
            ("/v1/screens/people-details/stream", 404, "unknown-item"),
            ("/v1/screens/people-details?item=alex-great&item=john-doe", 400, "invalid-query"),
            ("/v1/screens/people-details/changes?since=0&item=alex-great&item=nobody", 400, "invalid-query"),
            ("/v1/screens/settings?item=x", 400, "invalid-query"),
            ("/v1/screens/settings/changes?since=0&item=x", 400, "invalid-query"),
        ] {
            let answer = try api.send("GET", path, session: token)
            #expect(answer.status == status && answer.problemSlug == slug, "\(path): \(answer.bodyText)")
        }
        let onPlain = try api.send("POST", "/v1/screens/settings/selection?item=x", session: token, json: #"{"row": "dark"}"#)
        #expect(onPlain.status == 400 && onPlain.problemSlug == "invalid-query")
        let otherQuery = try api.send("POST", "/v1/screens/people-details/edit?item=alex-great&x=1", session: token, json: #"{"row": "age", "value": 3}"#)
        #expect(otherQuery.status == 400 && otherQuery.problemSlug == "invalid-query")
        let noItem = try event(api, "edit", token, item: nil, #"{"row": "age", "value": 3}"#)
        #expect(noItem.status == 404 && noItem.problemSlug == "unknown-item")
        // An id past 1,024 bytes is named, as one the list does not hold, not taken for none.
        let long = try api.send("GET", "/v1/screens/people-details?item=" + String(repeating: "x", count: 1025), session: token)
        #expect(long.status == 404 && long.problemSlug == "unknown-item" && long.bodyText.contains("holds no item"), "\(long.bodyText)")
    }

    @Test(arguments: StoreKind.allCases)
    func eventsChangeTheItemAndItsListShowsIt(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let (token, _) = try api.newBackendSession()
        let edit = try event(api, "edit", token, item: "alex-great", #"{"row": "age", "value": 33, "eventId": "age-1"}"#)
        #expect(edit.status == 200, "\(edit.bodyText)")
        let result = try #require(edit.json.objectValue)
        #expect(result["item"] == "alex-great" && result["toRevision"]?.intValue == 1)
        // The stepper already shows 33: nothing of the row comes back.
        #expect(try ChangeSet(json: try #require(result["changes"])).rows.updated.isEmpty)
        let people = try Screen(jsonBytes: try api.send("GET", "/v1/screens/people", session: token).body)
        #expect(people.sections[1].rows.first { $0.id == "person-alex-great" }?.content == .subtitle(title: "Alex Great", subtitle: "Age 33", image: nil))
        // The same event id for another item is another event.
        let reused = try event(api, "edit", token, item: "john-doe", #"{"row": "age", "value": 33, "eventId": "age-1"}"#)
        #expect(reused.status == 422 && reused.problemSlug == "event-id-reused", "\(reused.bodyText)")
        let retry = try event(api, "edit", token, item: "alex-great", #"{"row": "age", "value": 33, "eventId": "age-1"}"#)
        #expect(retry.body == edit.body)
        let feed = try api.feed("?limit=10") { $0.bodyText.contains(#""item":"alex-great","kind":"edit","row":"age","screen":"people-details""#) }
        #expect(feed.bodyText.contains(#""item":"alex-great","kind":"edit","row":"age","screen":"people-details""#), "\(feed.bodyText)")
        let entries = try #require(feed.json.objectValue?["entries"]?.arrayValue)
        #expect(entries.compactMap { $0.objectValue?["item"] } == ["alex-great"], "the event's entry names its item, the session's creation none")
        // A client at revision 0 of Alex's screen catches up.
        let changes = try api.send("GET", "/v1/screens/people-details/changes?since=0&item=alex-great", session: token)
        #expect(changes.status == 200 && changes.json.objectValue?["item"] == "alex-great", "\(changes.bodyText)")
        let updated = try ChangeSet(json: try #require(changes.json.objectValue?["changes"])).rows.updated
        #expect(updated.map(\.row.id) == ["age"])
    }

    @Test(arguments: StoreKind.allCases)
    func removingTheItemEndsItsScreenUntilItIsBack(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let (token, id) = try api.newBackendSession()
        let stream = try EventStreamClient(port: api.port, path: "/v1/screens/people-details/stream?item=alex-great", headers: ["X-Session: \(token)"])
        #expect(stream.head.status == 200)
        #expect(try stream.nextEvent()?.event == "screen")
        let other = try EventStreamClient(port: api.port, path: "/v1/screens/people-details/stream?item=john-doe", headers: ["X-Session: \(token)"])
        #expect(try other.nextEvent()?.event == "screen")
        // Removing Alex on his own screen: an empty change set, and the way back.
        let removed = try event(api, "selection", token, item: "alex-great", #"{"row": "remove"}"#)
        #expect(removed.status == 200, "\(removed.bodyText)")
        let result = try #require(removed.json.objectValue)
        #expect(try ChangeSet(json: try #require(result["changes"])).isEmpty)
        #expect(result["effects"] == [["type": "back"]] && result["toRevision"]?.intValue == 1)
        let gone = try #require(try stream.nextEvent())
        #expect(gone.event == "gone" && gone.data?.contains(#""reason":"item-removed""#) == true, "\(String(describing: gone.data))")
        #expect(try stream.nextEvent() == nil)
        let missing = try api.send("GET", "/v1/screens/people-details?item=alex-great", session: token)
        #expect(missing.status == 404 && missing.problemSlug == "unknown-item")
        // John's screen goes on; his list lost a row.
        let people = try Screen(jsonBytes: try api.send("GET", "/v1/screens/people", session: token).body)
        #expect(!people.sections[1].rows.contains { $0.id == "person-alex-great" })
        // The backend puts Alex back: his screen opens again.
        let record = try api.send("GET", "/v1/sessions/\(id)", headers: [BackendAPITests.authorization])
        let revision = try #require(record.json.objectValue?["revision"]?.intValue)
        let patch = try api.send(
            "PATCH", "/v1/sessions/\(id)/state", headers: [BackendAPITests.authorization, "If-Match: \"\(revision)\""],
            json: #"{"people": [{"id": "alex-great", "firstName": "Alex", "lastName": "Great", "age": 32}]}"#,
            contentType: "application/merge-patch+json")
        #expect(patch.status == 200, "\(patch.bodyText)")
        #expect(try api.send("GET", "/v1/screens/people-details?item=alex-great", session: token).status == 200)
        // John left the list with that patch: his stream ends too.
        var johnGone: ServerSentEvent?
        while let next = try other.nextEvent() {
            if next.event == "gone" { johnGone = next }
        }
        #expect(johnGone?.data?.contains("item-removed") == true)
    }
}
