import Foundation
import TabulaCore
import TabulaPlatform
import TabulaTestSupport
import Testing

@testable import TabulaService

/// A form of every input kind, for edit events.
func formCatalogue() throws -> Catalogue {
    try Catalogue.load([
        DefinitionFile(
            name: "form.json",
            bytes: Array(
                #"""
                {"id": "form", "title": "Form",
                 "state": {"name": "", "volume": 0.5, "copies": 1, "security": "", "day": "", "locked": false},
                 "sections": [{"id": "fields", "rows": [
                   {"id": "name", "kind": "textField", "title": "Name", "text": "{{name}}", "maxLength": 20, "onEdit": {"set": "name"}, "enabledWhen": "!locked"},
                   {"id": "password", "kind": "textField", "title": "Password", "contentType": "password",
                    "validate": [{"minLength": 8, "message": "At least 8 characters"}]},
                   {"id": "volume", "kind": "slider", "value": "volume", "min": 0, "max": 1, "onEdit": {"set": "volume"}},
                   {"id": "copies", "kind": "stepper", "title": "Copies", "value": "copies", "min": 1, "max": 9, "step": 2, "onEdit": {"set": "copies"}},
                   {"id": "security", "kind": "picker", "title": "Security", "selected": "{{security}}", "options": [{"id": "none", "title": "None"}, {"id": "wpa2", "title": "WPA2"}], "onEdit": {"set": "security"}},
                   {"id": "day", "kind": "datePicker", "title": "Day", "value": "{{day}}", "min": "2026-01-01", "max": "2026-12-31", "onEdit": {"set": "day"}},
                   {"id": "summary", "kind": "basic", "title": "{{name == '' ? 'Nobody' : name}} · {{copies}}"},
                   {"id": "lock", "kind": "titleSwitch", "title": "Lock", "isOn": "locked", "onSwitch": {"set": "locked"}}
                 ]}]}
                """#.utf8))
    ])
}

/// `POST /v1/screens/{id}/edit` on each store: values that fit each kind and values that do
/// not, the order of the refusals, answers that start from the copy the user sees, and a
/// secure field's value that is never kept.
@Suite struct EditEventTests {
    func server(_ factory: StoreFactory) throws -> APITestServer {
        let catalogue = try formCatalogue()
        return try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(BackendAPITests.key)
        }
    }

    func edit(_ api: APITestServer, _ session: String, _ body: String) throws -> RawHTTPResponse {
        try api.send("POST", "/v1/screens/form/edit", session: session, json: body)
    }

    func screen(_ api: APITestServer, _ session: String) throws -> Screen {
        try Screen(jsonBytes: try api.send("GET", "/v1/screens/form", session: session).body)
    }

    func row(_ screen: Screen, _ id: String) -> Row? {
        screen.sections.flatMap(\.rows).first { $0.id == id }
    }

    @Test(arguments: StoreKind.allCases)
    func valuesThatFitAreStoredAndTheEditedRowIsNotUpdated(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let session = try api.newSession()
        for (index, (row, value)) in [("name", #""Ann""#), ("volume", "0.25"), ("copies", "5"), ("security", #""wpa2""#), ("day", #""2026-11-28""#)]
            .enumerated()
        {
            let answer = try edit(api, session, #"{"row": "\#(row)", "value": \#(value)}"#)
            #expect(answer.status == 200, "\(row): \(answer.bodyText)")
            let result = try #require(answer.json.objectValue)
            #expect(result["toRevision"]?.intValue == index + 1, "\(row)")
            let changes = try ChangeSet(json: try #require(result["changes"]))
            #expect(!changes.rows.updated.contains { $0.row.id == row }, "\(row): the control already shows its value")
        }
        let shown = try screen(api, session)
        #expect(row(shown, "name")?.content.inputValue == .string("Ann"))
        #expect(row(shown, "volume")?.content.inputValue == .number(0.25))
        #expect(row(shown, "copies")?.content.inputValue == .number(5))
        #expect(row(shown, "security")?.content.inputValue == .string("wpa2"))
        #expect(row(shown, "day")?.content.inputValue == .string("2026-11-28"))
        #expect(row(shown, "summary")?.content == .basic(title: "Ann · 5"))
        // null clears a choice; the same value again changes nothing.
        #expect(try edit(api, session, #"{"row": "security", "value": null}"#).json.objectValue?["toRevision"]?.intValue == 6)
        #expect(row(try screen(api, session), "security")?.content.inputValue == InputValue.null)
        #expect(try edit(api, session, #"{"row": "name", "value": "Ann"}"#).json.objectValue?["toRevision"]?.intValue == 6)
    }

    @Test func anEditedRowThatChangesOtherwiseCarriesTheUsersValue() throws {
        let factory = try StoreFactory(.memory)
        let api = try server(factory)
        let session = try api.newSession()
        let copy = try screen(api, session)
        // The summary row reads the name; the edited row itself is not sent back.
        let answer = try edit(api, session, #"{"row": "name", "value": "Bo", "revision": 0, "definition": "\#(copy.definition ?? "")"}"#)
        let changes = try ChangeSet(json: try #require(answer.json.objectValue?["changes"]))
        #expect(changes.rows.updated.map(\.row.id) == ["summary"])
        let seen = copy.showing(.string("Bo"), inRow: "name")
        var applied = try changes.applyChecked(to: seen)
        applied.revision = 1
        #expect(applied == (try screen(api, session)))
    }

    @Test(arguments: [
        (#"{"row": "name", "value": 3}"#, "invalid-value", "a string of at most 20 characters"),
        (#"{"row": "name", "value": "a\tb"}"#, "invalid-value", "no control characters"),
        (#"{"row": "name", "value": "123456789012345678901"}"#, "invalid-value", "at most 20"),
        (#"{"row": "volume", "value": 1.5}"#, "invalid-value", "from 0 to 1"),
        (#"{"row": "copies", "value": 4}"#, "invalid-value", "in steps of 2 from 1"),
        (#"{"row": "security", "value": "wep"}"#, "invalid-value", #""none", "wpa2""#),
        (#"{"row": "day", "value": "2025-12-31"}"#, "invalid-value", #"from "2026-01-01""#),
        (#"{"row": "day", "value": "2026-02-30"}"#, "invalid-value", "a date like"),
        (#"{"row": "day", "value": true}"#, "invalid-value", "a date like"),
        (#"{"row": "summary", "value": "x"}"#, "event-not-applicable", "cannot be edited"),
        (#"{"row": "nothing", "value": "x"}"#, "unknown-row", "no row \"nothing\""),
    ])
    func valuesThatDoNotFitAreRefusedAndChangeNothing(body: String, slug: String, detail: String) throws {
        let api = try server(try StoreFactory(.memory))
        let session = try api.newSession()
        let answer = try edit(api, session, body)
        #expect(answer.problemSlug == slug, "\(answer.bodyText)")
        #expect(answer.json.objectValue?["detail"]?.stringValue?.contains(detail) == true, "\(answer.bodyText)")
        #expect(try api.revision(session, screen: "form") == 0)
    }

    @Test func aBodyWithoutAValueIsABadRequest() throws {
        let api = try server(try StoreFactory(.memory))
        let session = try api.newSession()
        #expect(try edit(api, session, #"{"row": "name"}"#).problemSlug == "invalid-body")
        #expect(try api.send("POST", "/v1/screens/form/selection", session: session, json: #"{"row": "lock", "value": 1}"#).problemSlug == "invalid-body")
    }

    @Test func aDisabledRowRefusesEveryEvent() throws {
        let api = try server(try StoreFactory(.memory))
        let session = try api.newSession()
        #expect(try api.send("POST", "/v1/screens/form/switch", session: session, json: #"{"row": "lock", "isOn": true}"#).status == 200)
        let answer = try edit(api, session, #"{"row": "name", "value": "Ann"}"#)
        #expect(answer.status == 422 && answer.problemSlug == "row-disabled", "\(answer.bodyText)")
        #expect(row(try screen(api, session), "name")?.enabled == false)
        // Hidden comes before disabled; an unknown row before both.
        #expect(try edit(api, session, #"{"row": "nothing", "value": "Ann"}"#).problemSlug == "unknown-row")
    }

    @Test func aClientThatDoesNotDrawTheKindCannotEditIt() throws {
        let api = try server(try StoreFactory(.memory))
        let created = try api.send("POST", "/v1/sessions", json: #"{"client": {"kinds": ["basic", "leftRightTitles", "titleSwitch"]}}"#)
        let session = try #require(created.json.objectValue?["session"]?.stringValue)
        #expect(row(try screen(api, session), "name")?.content == .leftRightTitles(leftTitle: "Name", rightTitle: ""))
        #expect(try edit(api, session, #"{"row": "name", "value": "Ann"}"#).problemSlug == "event-not-applicable")
    }

    /// A secure field's edits are checked, then forgotten: what the value came to is a
    /// revision (its feed entry lists no changed keys), the value is nowhere — not in the
    /// database files, the session, the feed, any screen or stored answer — and the error
    /// it left survives a restart.
    @Test(arguments: StoreKind.allCases)
    func aSecureValueIsNeverKept(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        var api = try server(factory)
        let created = try api.send("POST", "/v1/sessions").json.objectValue
        let session = try #require(created?["session"]?.stringValue)
        let id = try #require(created?["id"]?.stringValue)
        let secret = "hunter2"
        let answer = try edit(api, session, #"{"row": "password", "value": "\#(secret)", "eventId": "pw-1"}"#)
        #expect(answer.status == 200, "\(answer.bodyText)")
        #expect(answer.json.objectValue?["toRevision"]?.intValue == 1, "touched, with its result")
        let changes = try ChangeSet(json: try #require(answer.json.objectValue?["changes"]))
        #expect(changes.rows.updated.map(\.row.error) == ["At least 8 characters"])
        #expect(changes.rows.updated.first?.row.content.inputValue == .string(""), "a secure row's copy never holds its value")
        let replayed = try edit(api, session, #"{"row": "password", "value": "\#(secret)", "eventId": "pw-1"}"#)
        #expect(replayed.body == answer.body)
        #expect(try edit(api, session, #"{"row": "name", "value": "Ann", "eventId": "n-1"}"#).status == 200)
        let feed = try api.feed { $0.bodyText.contains(#""eventId":"n-1""#) }
        let entries = try #require(feed.json.objectValue?["entries"]?.arrayValue)
        let changedKeys: [JSONValue] = entries.compactMap { entry in entry.objectValue?["changedKeys"] }
        #expect(changedKeys.contains(.array([])), "a change of marks alone lists no key")
        let record = try api.send("GET", "/v1/sessions/\(id)", headers: [BackendAPITests.authorization])
        #expect(record.json.objectValue?["state"]?.objectValue?.keys.contains("$form") == false)
        for text in [answer.bodyText, try api.send("GET", "/v1/screens/form", session: session).bodyText, feed.bodyText, record.bodyText] {
            #expect(!text.contains(secret))
        }
        if kind == .memory { return }
        // A restart keeps what the value came to.
        api.store.close()
        api = try server(factory)
        defer { api.store.close() }
        let password = row(try screen(api, session), "password")
        #expect(password?.error == "At least 8 characters")
        if kind == .sqlite {
            for file in try FileManager.default.contentsOfDirectory(atPath: factory.directory.path) {
                let bytes = try Data(contentsOf: factory.directory.appendingPathComponent(file))
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the secret")
            }
        }
    }

    /// Random edits from one client: its copy with its own edit, plus the answer, is the
    /// screen a `GET` shows.
    @Test(arguments: StoreKind.allCases)
    func randomEditsKeepTheUsersCopyExact(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let session = try api.newSession()
        var copy = try screen(api, session)
        var random = SystemRandomNumberGenerator()
        let edits: [(String, [InputValue])] = [
            ("name", [.string(""), .string("Ann"), .string("Bo"), .string("Cleo")]),
            ("volume", [.number(0), .number(0.5), .number(1)]),
            ("copies", [.number(1), .number(3), .number(9)]),
            ("security", [.null, .string("none"), .string("wpa2")]),
            ("day", [.null, .string("2026-03-01"), .string("2026-12-31")]),
        ]
        for step in 0..<40 {
            let (rowID, values) = edits[Int.random(in: 0..<edits.count, using: &random)]
            let value = values[Int.random(in: 0..<values.count, using: &random)]
            let json = String(decoding: value.json.canonicalBytes, as: UTF8.self)
            let answer = try edit(
                api, session, #"{"row": "\#(rowID)", "value": \#(json), "revision": \#(copy.revision), "definition": "\#(copy.definition ?? "")"}"#)
            #expect(answer.status == 200, "step \(step): \(answer.bodyText)")
            let result = try #require(answer.json.objectValue)
            let changes = try ChangeSet(json: try #require(result["changes"]))
            copy = try changes.applyChecked(to: copy.showing(value, inRow: rowID))
            copy.revision = try #require(result["toRevision"]?.intValue)
            #expect(copy == (try screen(api, session)), "step \(step): \(rowID) = \(json)")
        }
    }
}
