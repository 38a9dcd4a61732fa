import Foundation
import TabulaCore
import TabulaService
import TabulaTestSupport
import Testing

/// A session's client context (`{"locale", "kinds"}`): given at `POST /v1/sessions`, replaced
/// with `PUT /v1/session/client`, kept by every store, and a revision like any other.
@Suite struct ClientContextTests {
    static let builtIn = RowContent.builtInKinds.map { "\"\($0)\"" }.joined(separator: ", ")

    func newSession(_ api: APITestServer, client: String) throws -> String {
        let created = try api.send("POST", "/v1/sessions", json: #"{"client": \#(client)}"#)
        #expect(created.status == 201, "\(created.bodyText)")
        return try #require(created.json.objectValue?["session"]?.stringValue)
    }

    func screen(_ api: APITestServer, _ session: String, _ id: String = "settings") throws -> Screen {
        let response = try api.send("GET", "/v1/screens/\(id)", session: session)
        #expect(response.status == 200, "\(response.bodyText)")
        return try Screen(jsonBytes: response.body)
    }

    func kind(_ screen: Screen, _ row: String) -> String? {
        screen.sections.flatMap(\.rows).first { $0.id == row }?.kind
    }

    /// An old client's kinds, a change of them through PUT, and its change set: on each store,
    /// and again after a restart where the store keeps sessions.
    @Test(arguments: StoreKind.allCases)
    func aClientGetsTheKindsItDrawsAndAChangeOfThemIsARevision(kind storeKind: StoreKind) throws {
        let factory = try StoreFactory(storeKind)
        let catalogue = try APITestServer.fixtures()
        var api: APITestServer? = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        // A PostgreSQL store holds connections until it is closed.
        defer { api?.store.close() }
        let everyKind = try #require(api).newSession()
        let old = try newSession(try #require(api), client: #"{"locale": "fr-ch", "kinds": [\#(Self.builtIn)]}"#)
        #expect(kind(try screen(try #require(api), everyKind), "updates") == "badge")
        let oldScreen = try screen(try #require(api), old)
        #expect(kind(oldScreen, "updates") == "leftRightTitles" && oldScreen.revision == 0)

        // The same context again changes nothing; another is revision 1.
        let same = try #require(api).send("PUT", "/v1/session/client", session: old, json: #"{"locale": "fr-CH", "kinds": [\#(Self.builtIn)]}"#)
        #expect(same.status == 200 && same.json.objectValue?["toRevision"]?.intValue == 0, "\(same.bodyText)")
        let stream = try StreamClientCopy(port: try #require(api).port, screen: "settings", session: old)
        try stream.catchUp(to: oldScreen, "\(storeKind): opening")
        let put = try #require(api).send("PUT", "/v1/session/client", session: old, json: #"{"kinds": ["basic", "titleSwitch", "checkmark", "badge"]}"#)
        #expect(put.status == 200, "\(put.bodyText)")
        #expect(put.bodyText == #"{"client":{"kinds":["badge","basic","checkmark","titleSwitch"]},"fromRevision":0,"toRevision":1}"#)
        let newScreen = try screen(try #require(api), old)
        #expect(newScreen.revision == 1 && kind(newScreen, "updates") == "badge" && kind(newScreen, "version") == nil)
        try stream.catchUp(to: newScreen, "\(storeKind): the stream after PUT")
        var catchingUp = DeploymentTests.Client(copy: oldScreen)
        try catchingUp.apply(try #require(api).send("GET", "/v1/screens/settings/changes?since=0", session: old), reaching: newScreen, "catch-up")

        // An event's change set is that of the screen the client gets.
        var client = DeploymentTests.Client(copy: newScreen)
        let event = try #require(api).send(
            "POST", "/v1/screens/settings/switch", session: old, json: #"{"row": "bluetooth", "isOn": true, "revision": 1}"#)
        try client.apply(event, reaching: try screen(try #require(api), old), "an event")

        if storeKind != .memory {
            api?.store.close()
            api = nil
            api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
            #expect(try screen(try #require(api), old) == client.copy, "\(storeKind): the context outlives a restart")
        }
    }

    @Test func badClientContextsAreRefusedWithWhatToFix() throws {
        let api = try APITestServer()
        for (body, detail) in [
            (#"{"client": "fr"}"#, "client must be an object"),
            (#"{"client": {"locale": "french language"}}"#, "BCP 47"),
            (#"{"client": {"locale": 3}}"#, "BCP 47"),
            (#"{"client": {"kinds": "basic"}}"#, "array"),
            (#"{"client": {"kinds": [""]}}"#, "kind names"),
            (#"{"client": {"theme": "dark"}}"#, "a client context takes kinds, locale"),
        ] {
            let answer = try api.send("POST", "/v1/sessions", json: body)
            #expect(answer.status == 400 && answer.bodyText.contains(detail), "\(body): \(answer.bodyText)")
        }
        // A new session's body of any members, or none, is JSON before it is read.
        for body in ["{}", #"{"client": {"locale": "fr"}}"#, "{"] {
            let answer = try api.send("POST", "/v1/sessions", json: body, contentType: "text/plain")
            #expect(answer.status == 415 && answer.problemSlug == "unsupported-media-type", "\(body): \(answer.bodyText)")
        }
        let session = try api.newSession()
        #expect(try api.send("PUT", "/v1/session/client", json: #"{"locale": "fr"}"#).status == 401)
        #expect(try api.send("PUT", "/v1/session/client", session: session, json: "[]").status == 400)
        #expect(try api.send("PUT", "/v1/session/client", session: session, json: #"{"locale": "fr"}"#, contentType: "text/plain").status == 415)
        #expect(try api.send("PUT", "/v1/session/client", session: "unknown-token-unknown-token-xx", json: #"{"locale": "fr"}"#).status == 401)
    }

    /// `"kinds": []` lists none, as a context without kinds: every kind as it is. It used to
    /// be a client that draws nothing, and every row of every screen was left out.
    @Test func anEmptyListOfKindsListsNone() throws {
        let api = try APITestServer()
        let created = try api.send("POST", "/v1/sessions", json: #"{"client": {"kinds": []}}"#)
        #expect(created.status == 201 && created.json.objectValue?["client"]?.objectValue?["kinds"] == nil, "\(created.bodyText)")
        let token = try #require(created.json.objectValue?["session"]?.stringValue)
        let plain = try api.send("GET", "/v1/screens/settings", session: try api.newSession())
        #expect(try api.send("GET", "/v1/screens/settings", session: token).body == plain.body)
        let put = try api.send("PUT", "/v1/session/client", session: token, json: #"{"kinds": []}"#)
        #expect(put.status == 200 && put.json.objectValue?["toRevision"] == put.json.objectValue?["fromRevision"], "\(put.bodyText)")
    }

    /// The backend's whole-state PUT replaces the values, not the client's context.
    @Test func theBackendsStateLeavesTheClientsContext() throws {
        let api = try APITestServer { $0.backendKey = APIKey("backend-key-0123456") }
        let created = try api.send(
            "POST", "/v1/sessions", headers: ["Authorization: Bearer backend-key-0123456"], json: #"{"client": {"kinds": ["basic"]}, "subject": "u"}"#)
        #expect(created.status == 201, "\(created.bodyText)")
        let token = try #require(created.json.objectValue?["session"]?.stringValue)
        let id = try #require(created.json.objectValue?["id"]?.stringValue)
        let put = try api.send(
            "PUT", "/v1/sessions/\(id)/state", headers: ["Authorization: Bearer backend-key-0123456", #"If-Match: "0""#], json: #"{"wifi": false}"#)
        #expect(put.status == 200, "\(put.bodyText)")
        let screen = try screen(api, token)
        #expect(screen.revision == 1 && screen.sections.flatMap(\.rows).allSatisfy { $0.kind == "basic" })
    }
}
