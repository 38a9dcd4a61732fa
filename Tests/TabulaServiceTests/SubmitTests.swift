import Foundation
import TabulaCore
import TabulaSamples
import TabulaTestSupport
import Testing

@testable import TabulaService

/// A selection that submits a form, over HTTP on each store: the values it carries, its
/// `submit` result, its feed entry, and its secure values nowhere.
@Suite struct SubmitTests {
    func server(_ factory: StoreFactory) throws -> APITestServer {
        let catalogue = try Catalogue.load([DefinitionFile(name: "signin.json", bytes: Array(FormSamples.signIn.utf8))])
        return try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(BackendAPITests.key)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSubmitWithValuesAnswersFromWhatTheUserSees(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let session = try api.newSession()
        let copy = try Screen(jsonBytes: try api.send("GET", "/v1/screens/signin", session: session).body)
        let failed = try api.send("POST", "/v1/screens/signin/selection", session: session, json: #"{"row": "go", "eventId": "s-1"}"#)
        #expect(failed.json.objectValue?["submit"] == ["form": "signin", "valid": false], "\(failed.bodyText)")
        #expect(failed.json.objectValue?["toRevision"]?.intValue == 1)
        var copy1 = try ChangeSet(json: try #require(failed.json.objectValue?["changes"])).applyChecked(to: copy)
        copy1.revision = 1
        #expect(copy1 == (try Screen(jsonBytes: try api.send("GET", "/v1/screens/signin", session: session).body)))
        let secret = "correct horse"
        let body = #"{"row": "go", "eventId": "s-2", "values": {"email": "ann@example.com", "password": "\#(secret)", "repeat": "\#(secret)"}}"#
        let passed = try api.send("POST", "/v1/screens/signin/selection", session: session, json: body)
        #expect(passed.json.objectValue?["submit"] == ["form": "signin", "valid": true], "\(passed.bodyText)")
        // The answer goes from the copy with the values the user typed: applied to it, the
        // screen a GET shows; the password rows never hold their values.
        let changes = try ChangeSet(json: try #require(passed.json.objectValue?["changes"]))
        var seen = copy1
        for (row, value) in [("email", "ann@example.com"), ("password", secret), ("repeat", secret)] { seen = seen.showing(.string(value), inRow: row) }
        var applied = try changes.applyChecked(to: seen)
        applied.revision = 2
        let shown = try Screen(jsonBytes: try api.send("GET", "/v1/screens/signin", session: session).body)
        #expect(applied == shown)
        #expect(shown.sections.flatMap(\.rows).first { $0.id == "status" }?.content == .basic(title: "Ready"))
        func events(_ feed: RawHTTPResponse) -> [JSONObject] {
            (feed.json.objectValue?["entries"]?.arrayValue ?? []).compactMap { $0.objectValue?["event"]?.objectValue }
        }
        let feed = try api.feed { events($0).contains { $0["eventId"] == "s-2" } }
        let events = events(feed)
        let submitted = try #require(events.last)
        #expect(submitted["form"] == "signin" && submitted["values"] == ["email": "ann@example.com"], "\(feed.bodyText)")
        #expect(!feed.bodyText.contains(secret) && !passed.bodyText.contains(secret))
        #expect(try api.send("POST", "/v1/screens/signin/selection", session: session, json: body).body == passed.body, "a retry replays")
        let outside = try api.send("POST", "/v1/screens/signin/selection", session: session, json: #"{"row": "go", "values": {"status": "x"}}"#)
        #expect(outside.problemSlug == "invalid-value" && outside.json.objectValue?["row"] == "status", "the refused row is named")
        #expect(try api.send("POST", "/v1/screens/signin/selection", session: session, json: #"{"row": "go", "values": 3}"#).problemSlug == "invalid-body")
        if kind == .sqlite {
            api.store.close()
            for file in try FileManager.default.contentsOfDirectory(atPath: factory.directory.path) {
                let bytes = try Data(contentsOf: factory.directory.appendingPathComponent(file))
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the secret")
            }
        }
    }
}
