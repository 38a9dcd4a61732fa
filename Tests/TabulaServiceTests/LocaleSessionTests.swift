import Foundation
import TabulaCore
import TabulaService
import TabulaTestSupport
import Testing

/// Sessions in the bundled languages over HTTP: `Accept-Language` chooses a new session's
/// locale when its client names none, every text is in that language, and a switch of
/// language is one change set for the stream, catch-up and the next event.
@Suite struct LocaleSessionTests {
    func screen(_ api: APITestServer, _ session: String, _ id: String = "settings") throws -> Screen {
        let response = try api.send("GET", "/v1/screens/\(id)", session: session)
        #expect(response.status == 200, "\(response.bodyText)")
        return try Screen(jsonBytes: response.body)
    }

    func newSession(_ api: APITestServer, headers: [String] = [], json: String? = nil) throws -> (session: String, client: String) {
        let created = try api.send("POST", "/v1/sessions", headers: headers, json: json)
        #expect(created.status == 201, "\(created.bodyText)")
        let client = try #require(created.json.objectValue?["client"]).canonicalText
        return (try #require(created.json.objectValue?["session"]?.stringValue), client)
    }

    /// A French session from `Accept-Language`, a deletion that makes the footer singular,
    /// then a switch to Polish: on each store, the stream and catch-up reach every screen.
    @Test(arguments: StoreKind.allCases)
    func aFrenchSessionSwitchesToPolish(kind storeKind: StoreKind) throws {
        let factory = try StoreFactory(storeKind)
        let catalogue = try APITestServer.fixtures()
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        defer { api.store.close() }
        let (session, client) = try newSession(api, headers: ["Accept-Language: fr-CH, en;q=0.5"])
        #expect(client == #"{"locale":"fr"}"#)
        let french = try screen(api, session)
        #expect(french.title == "Réglages")
        #expect(french.sections.first?.footer == .textFooter(text: "2 réseaux connus"))
        #expect(french.sections.first?.header == .titleHeader(title: "Connectivité"))
        let stream = try StreamClientCopy(port: api.port, screen: "settings", session: session)
        try stream.catchUp(to: french, "\(storeKind): opening")

        var copy = DeploymentTests.Client(copy: french)
        let deletion = try api.send(
            "POST", "/v1/screens/settings/deletion", session: session, json: #"{"row": "network-cafe", "revision": 0}"#)
        let singular = try screen(api, session)
        try copy.apply(deletion, reaching: singular, "\(storeKind): the deletion")
        #expect(singular.sections.first?.footer == .textFooter(text: "1 réseau connu"))
        try stream.catchUp(to: singular, "\(storeKind): the deletion")

        let put = try api.send("PUT", "/v1/session/client", session: session, json: #"{"locale": "pl"}"#)
        #expect(put.bodyText == #"{"client":{"locale":"pl"},"fromRevision":1,"toRevision":2}"#)
        let polish = try screen(api, session)
        #expect(polish.title == "Ustawienia" && polish.revision == 2)
        #expect(polish.sections.first?.footer == .textFooter(text: "1 znana sieć"))
        try stream.catchUp(to: polish, "\(storeKind): the switch to Polish")
        var catchingUp = DeploymentTests.Client(copy: singular)
        try catchingUp.apply(try api.send("GET", "/v1/screens/settings/changes?since=1", session: session), reaching: polish, "catch-up")
    }

    @Test func theClientsOwnLocaleWinsAndNoMatchIsTheDefault() throws {
        let api = try APITestServer()
        let named = try newSession(api, headers: ["Accept-Language: fr"], json: #"{"client": {"locale": "pl-PL"}}"#)
        #expect(named.client == #"{"locale":"pl-PL"}"#)
        #expect(try screen(api, named.session).title == "Ustawienia")
        let german = try newSession(api, headers: ["Accept-Language: de-DE, de;q=0.9"])
        #expect(german.client == "{}")
        #expect(try screen(api, german.session).title == "Settings")
        let none = try newSession(api)
        #expect(none.client == "{}")
        // Kinds without a locale: Accept-Language still chooses it.
        let kinds = try newSession(api, headers: ["Accept-Language: pl"], json: #"{"client": {"kinds": ["basic"]}}"#)
        #expect(kinds.client == #"{"kinds":["basic"],"locale":"pl"}"#)
        // A PUT without a locale keeps the language the request prefers, not the default.
        let put = try api.send(
            "PUT", "/v1/session/client", session: kinds.session, headers: ["Accept-Language: pl"], json: #"{"kinds": ["basic", "titleSwitch"]}"#)
        #expect(put.json.objectValue?["client"]?.canonicalText == #"{"kinds":["basic","titleSwitch"],"locale":"pl"}"#, "\(put.bodyText)")
    }

    /// An old app in Polish: the badge row falls back to left and right titles, in Polish.
    @Test func anOldClientGetsTheFallbackInItsLanguage() throws {
        let api = try APITestServer()
        let builtIn = RowContent.builtInKinds.map { "\"\($0)\"" }.joined(separator: ", ")
        let old = try newSession(api, json: #"{"client": {"locale": "pl", "kinds": [\#(builtIn)]}}"#)
        let row = try screen(api, old.session).sections.flatMap(\.rows).first { $0.id == "updates" }
        #expect(row?.content == .leftRightTitles(leftTitle: "Aktualizacja oprogramowania", rightTitle: "1"))
    }
}
