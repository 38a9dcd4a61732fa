import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
import Testing

/// Every operation of `openapi.json`, called with the client swift-openapi-generator makes
/// from it, against a live `tabula serve` of each test's own: answers that decode into the
/// generated types, and the problem answers where a client meets them.
@Suite(.timeLimit(.minutes(1))) struct GeneratedClientTests {
    /// `GET /healthz`, `/metrics`, `/openapi.json`, `/v1/screens`, the preview page's routes
    /// and the web client's files: status, content type, and conditional requests where the
    /// document has them.
    @Test func servesTheServiceRoutes() async throws {
        let server = try TabulaServer()
        let client = makeTabulaClient(baseURL: server.baseURL)

        #expect(try await client.health().ok.body.json.status == .ok)
        let metrics = try await String(collecting: client.metrics().ok.body.plainText, upTo: 1 << 22)
        #expect(metrics.contains("tabula_open_streams"))
        let document = try await client.openapi().ok.body.json
        #expect(document.value["openapi"] as? String == "3.1.0")
        let screens = try await client.listScreens().ok.body.json.screens
        #expect(Set(screens.map(\.id)).isSuperset(of: ["settings", "inbox", "gauges"]))

        // The preview page is one page for the list and for a screen: its script decides.
        let previewList = try await String(collecting: client.previewList().ok.body.html, upTo: 1 << 22)
        let previewScreen = try await String(collecting: client.previewScreen(path: .init(screen: "settings")).ok.body.html, upTo: 1 << 22)
        #expect(previewList.lowercased().hasPrefix("<!doctype html>") && previewScreen == previewList)
        _ = try await client.previewAsset(path: .init(file: .preview_period_css)).ok.body.text_css
        _ = try await client.previewAsset(path: .init(file: .preview_period_js)).ok.body.text_javascript
        let catalogue = try await client.previewCatalogue().ok.body.json
        #expect(catalogue.screens.contains { $0.id == "gauges" })

        let script = try await client.clientScript().ok
        let scriptTag = try #require(script.headers.ETag)
        _ = try script.body.text_javascript
        #expect(try await client.clientScript(headers: .init(If_hyphen_None_hyphen_Match: scriptTag)).notModified.headers.ETag == scriptTag)
        let stylesheet = try await client.clientStylesheet().ok
        let stylesheetTag = try #require(stylesheet.headers.ETag)
        _ = try stylesheet.body.text_css
        #expect(try await client.clientStylesheet(headers: .init(If_hyphen_None_hyphen_Match: stylesheetTag)).notModified.headers.ETag == stylesheetTag)
    }

    /// A session, its screen with `If-None-Match`, a language from `Accept-Language` and a new
    /// client context, and the settings screen's events as the README walks through them:
    /// switch, selection (retried with its `eventId`), deletion, then `changes?since=0`. The
    /// deletion's change set updates the section's footer to "1 known network".
    @Test func drivesTheSettingsScreen() async throws {
        let server = try TabulaServer()
        let client = makeTabulaClient(baseURL: server.baseURL)

        let french = try await client.createSession(headers: .init(Accept_hyphen_Language: "fr-CH, fr;q=0.9, en;q=0.5")).created.body.json
        #expect(french.client.locale == "fr")
        let created = try await client.createSession().created
        let session = try created.body.json
        #expect(created.headers.Location == "/v1/sessions/\(session.id)")
        let token = session.session

        let screen = try await client.getScreen(path: .init(id: "settings"), headers: .init(X_hyphen_Session: token)).ok
        #expect(try screen.body.json.revision == 0)
        let etag = try #require(screen.headers.ETag)
        let unchanged = try await client.getScreen(path: .init(id: "settings"), headers: .init(X_hyphen_Session: token, If_hyphen_None_hyphen_Match: etag))
        _ = try unchanged.notModified
        let definition = try screen.body.json.definition

        let off = try await client.postSwitch(
            path: .init(id: "settings"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "wifi", isOn: false, revision: 0, definition: definition))
        ).ok.body.json
        #expect(off.fromRevision == 0 && off.toRevision == 1)
        #expect(off.changes.rows.deleted.map { [$0.section, $0.row] } == [[0, 1], [0, 2]])
        #expect(off.changes.rows.updated.first?.model.isOn == false)

        let select = Components.Schemas.SelectionEvent(row: "dark", revision: 1, definition: definition, eventId: "select-dark")
        let dark = try await client.postSelection(path: .init(id: "settings"), headers: .init(X_hyphen_Session: token), body: .json(select)).ok.body.json
        #expect(dark.toRevision == 2)
        #expect(dark.changes.rows.updated.contains { $0.model.id == "dark" && $0.model.isChecked == true })
        let replayed = try await client.postSelection(path: .init(id: "settings"), headers: .init(X_hyphen_Session: token), body: .json(select)).ok.body.json
        #expect(replayed == dark)

        _ = try await client.postSwitch(
            path: .init(id: "settings"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "wifi", isOn: true, revision: 2, definition: definition))
        ).ok
        let deleted = try await client.postDeletion(
            path: .init(id: "settings"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "network-home", revision: 3, definition: definition))
        ).ok.body.json
        #expect(deleted.toRevision == 4)
        let section = try #require(deleted.changes.sections.updated.first)
        #expect(section.footer?.text == "1 known network")
        #expect(section.header?.kind == "titleHeader")

        let changes = try await client.getChanges(
            path: .init(id: "settings"), query: .init(since: 0, definition: definition), headers: .init(X_hyphen_Session: token)
        )
        .ok.body.json
        #expect(changes.fromRevision == 0 && changes.toRevision == 4)
        #expect(changes.changes.sections.updated.first?.footer?.text == "1 known network")

        let context = try await client.putClient(headers: .init(X_hyphen_Session: token), body: .json(.init(locale: "pl"))).ok.body.json
        #expect(context.client.locale == "pl" && context.fromRevision == 4 && context.toRevision == 5)
        let polish = try await client.getScreen(path: .init(id: "settings"), headers: .init(X_hyphen_Session: token)).ok.body.json
        #expect(polish.sections.first?.footer?.text == "1 znana sieć")

        // Problems: a row that is not selectable, a revision ahead of the session, a bad
        // `since`, an unknown screen and an unknown token.
        let version = try await client.postSelection(path: .init(id: "settings"), headers: .init(X_hyphen_Session: token), body: .json(.init(row: "version")))
        #expect(try version.unprocessableContent.body.application_problem_plus_json._type == "urn:tabula:problem:event-not-applicable")
        let future = try await client.getChanges(path: .init(id: "settings"), query: .init(since: 99), headers: .init(X_hyphen_Session: token))
        let problem = try future.conflict.body.application_problem_plus_json
        #expect(problem._type == "urn:tabula:problem:future-revision" && problem.currentRevision == 5)
        let negative = try await client.getChanges(path: .init(id: "settings"), query: .init(since: -1), headers: .init(X_hyphen_Session: token))
        #expect(try negative.badRequest.body.application_problem_plus_json._type == "urn:tabula:problem:invalid-query")
        #expect(try await client.getScreen(path: .init(id: "no-such-screen")).notFound.body.application_problem_plus_json.status == 404)
        let stranger = try await client.getScreen(path: .init(id: "settings"), headers: .init(X_hyphen_Session: "no-such-token"))
        #expect(try stranger.unauthorized.body.application_problem_plus_json._type == "urn:tabula:problem:unknown-session")
    }

    /// Custom row, header and footer fields that are numbers and bools, a slider's number, a
    /// date picker's date and its null, an item screen's stepper, and a form's submit with
    /// values.
    @Test func editsInputRowsAndDecodesCustomFields() async throws {
        let server = try TabulaServer()
        let client = makeTabulaClient(baseURL: server.baseURL)
        let token = try await client.createSession().created.body.json.session

        let gauges = try await client.getScreen(path: .init(id: "gauges"), headers: .init(X_hyphen_Session: token)).ok.body.json
        let section = try #require(gauges.sections.first)
        #expect(section.header?.additionalProperties["level"] == .case2(3))
        #expect(section.header?.additionalProperties["alert"] == .case3(false))
        #expect(section.header?.title == "Levels")
        let gauge = try #require(section.rows.first { $0.id == "gauge" })
        #expect(gauge.additionalProperties["level"] == .case2(3))
        #expect(gauge.additionalProperties["critical"] == .case3(false))
        #expect(gauge.additionalProperties["label"] == .case1("Level"))
        let slider = try #require(section.rows.first { $0.id == "level" })
        #expect(slider.value == .case1(3) && slider.min == .case1(0) && slider.max == .case1(10))
        let day = try #require(section.rows.first { $0.id == "day" })
        #expect(day.value == .case2("2026-11-29") && day.min == .case2("2026-01-01") && day.max == .case2("2026-12-31"))

        let raised = try await client.postEdit(
            path: .init(id: "gauges"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "level", value: .case2(7), revision: 0, definition: gauges.definition))
        ).ok.body.json
        let updatedGauge = try #require(raised.changes.rows.updated.first { $0.model.id == "gauge" }?.model)
        #expect(updatedGauge.additionalProperties["level"] == .case2(7))
        #expect(updatedGauge.additionalProperties["critical"] == .case3(true))
        let updatedSection = try #require(raised.changes.sections.updated.first)
        #expect(updatedSection.header?.additionalProperties["level"] == .case2(7))
        #expect(updatedSection.footer?.text == "Level 7")

        let christmas = try await client.postEdit(
            path: .init(id: "gauges"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "day", value: .case1("2026-12-24"), revision: 1, definition: gauges.definition))
        ).ok.body.json
        #expect(christmas.toRevision == 2)
        let cleared = try await client.postEdit(
            path: .init(id: "gauges"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "day", value: .case1(nil), revision: 2, definition: gauges.definition))
        ).ok.body.json
        #expect(cleared.toRevision == 3)
        let now = try await client.getScreen(path: .init(id: "gauges"), headers: .init(X_hyphen_Session: token)).ok.body.json
        #expect(now.sections.first?.rows.first { $0.id == "day" }?.value == nil)
        let late = try await client.postEdit(
            path: .init(id: "gauges"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "day", value: .case1("2027-01-01")))
        )
        #expect(try late.unprocessableContent.body.application_problem_plus_json._type == "urn:tabula:problem:invalid-value")

        // An item screen: every route takes `?item=`.
        let person = try await client.getScreen(path: .init(id: "people-details"), query: .init(item: "alex-great"), headers: .init(X_hyphen_Session: token))
            .ok.body.json
        #expect(person.item == "alex-great")
        let older = try await client.postEdit(
            path: .init(id: "people-details"),
            query: .init(item: "alex-great"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "age", value: .case2(33), revision: person.revision, definition: person.definition))
        ).ok.body.json
        #expect(older.item == "alex-great" && older.toRevision == person.revision + 1)
        let personChanges = try await client.getChanges(
            path: .init(id: "people-details"),
            query: .init(item: "alex-great", since: person.revision, definition: person.definition),
            headers: .init(X_hyphen_Session: token)
        ).ok.body.json
        #expect(personChanges.changes.rows.updated.first { $0.model.id == "age" }?.model.value == .case1(33))
        let nobody = try await client.getScreen(path: .init(id: "people-details"), query: .init(item: "nobody"), headers: .init(X_hyphen_Session: token))
        #expect(try nobody.notFound.body.application_problem_plus_json._type == "urn:tabula:problem:unknown-item")

        // A submit with the form's values.
        let join = try await client.postSelection(
            path: .init(id: "join-network"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "join", values: .init(additionalProperties: ["name": .case1("Attic"), "password": .case1("attic-secret")])))
        ).ok.body.json
        #expect(join.submit?.form == "join" && join.submit?.valid == true)
        let joined = try await client.getScreen(path: .init(id: "join-network"), headers: .init(X_hyphen_Session: token)).ok.body.json
        #expect(joined.sections.first?.footer?.text?.contains("Attic") == true)
    }

    /// Moves and swipe actions on the inbox, an edit of its search field, and the feed that
    /// records them all: every event kind, decoded with its event, paged with `after`.
    @Test func readsTheFeedOfEveryEventKind() async throws {
        let server = try TabulaServer()
        let client = makeTabulaClient(baseURL: server.baseURL)
        let backend = makeTabulaClient(baseURL: server.baseURL, backendKey: TabulaServer.backendKey)
        let token = try await client.createSession().created.body.json.session
        let headers = Operations.postMove.Input.Headers(X_hyphen_Session: token)

        let inbox = try await client.getScreen(path: .init(id: "inbox"), headers: .init(X_hyphen_Session: token)).ok.body.json
        #expect(inbox.sections.first?.rows.map(\.id).prefix(2) == ["favourite-ann", "favourite-bob"])
        let moved = try await client.postMove(
            path: .init(id: "inbox"),
            headers: headers,
            body: .json(.init(row: "favourite-ann", to: .init(section: 0, row: 2), revision: 0, definition: inbox.definition, eventId: "move-ann"))
        ).ok.body.json
        #expect(moved.toRevision == 1)
        let after = try await client.getScreen(path: .init(id: "inbox"), headers: .init(X_hyphen_Session: token)).ok.body.json
        #expect(after.sections.first?.rows.map(\.id).prefix(3) == ["favourite-bob", "favourite-chloe", "favourite-ann"])
        let message = try #require(after.sections[1].rows.first { $0.id == "message-m300" })
        #expect(message.leadingActions?.map(\.id) == ["flag"])
        #expect(message.trailingActions?.map(\.style) == [.normal, .destructive])

        let flagged = try await client.postAction(
            path: .init(id: "inbox"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "message-m300", action: "flag", eventId: "flag-m300"))
        ).ok.body.json
        #expect(flagged.changes.rows.updated.first { $0.model.id == "message-m300" }?.model.leadingActions?.map(\.id) == ["unflag"])
        let unknownAction = try await client.postAction(
            path: .init(id: "inbox"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "message-m300", action: "no-such-action"))
        )
        #expect(try unknownAction.unprocessableContent.body.application_problem_plus_json._type == "urn:tabula:problem:unknown-action")
        _ = try await client.postEdit(
            path: .init(id: "inbox"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "inbox-search", value: .case1("Team"), eventId: "search"))
        ).ok
        _ = try await client.postDeletion(path: .init(id: "inbox"), headers: .init(X_hyphen_Session: token), body: .json(.init(row: "favourite-grace"))).ok
        _ = try await client.postSwitch(path: .init(id: "settings"), headers: .init(X_hyphen_Session: token), body: .json(.init(row: "wifi", isOn: false))).ok
        _ = try await client.postSelection(path: .init(id: "settings"), headers: .init(X_hyphen_Session: token), body: .json(.init(row: "dark"))).ok
        _ = try await client.postEdit(
            path: .init(id: "gauges"),
            headers: .init(X_hyphen_Session: token),
            body: .json(.init(row: "level", value: .case2(9)))
        ).ok

        let page = try await backend.readFeed().ok.body.json
        #expect(page.entries.first?.cause == .created && page.entries.first?.event == nil)
        let events = page.entries.compactMap(\.event)
        #expect(Set(events.map(\.kind)) == [.selection, ._switch, .deletion, .edit, .move, .action])
        #expect(events.first { $0.kind == .move }?.to == .init(section: 0, row: 2))
        #expect(events.first { $0.kind == .move }?.eventId == "move-ann")
        #expect(events.first { $0.kind == .action }?.action == "flag")
        #expect(events.first { $0.kind == .edit && $0.screen == "inbox" }?.value == .case1("Team"))
        #expect(events.first { $0.kind == .edit && $0.screen == "gauges" }?.value == .case2(9))
        #expect(events.first { $0.kind == ._switch }?.isOn == false)
        #expect(page.entries.allSatisfy { ($0.cause == .event) == ($0.event != nil) })

        let first = try await backend.readFeed(query: .init(limit: 2)).ok.body.json
        #expect(first.entries.count == 2)
        let rest = try await backend.readFeed(query: .init(after: first.next)).ok.body.json
        #expect(first.entries.map(\.cursor) + rest.entries.map(\.cursor) == page.entries.map(\.cursor))
        #expect(try await backend.readFeed(query: .init(after: "not-a-cursor")).badRequest.body.application_problem_plus_json.status == 400)
        #expect(try await client.readFeed().unauthorized.body.application_problem_plus_json._type == "urn:tabula:problem:unauthorized")
    }

    /// The backend's routes: a session with state and subject, read with `If-None-Match`,
    /// written with `If-Match` (200, then 412 on the old revision), as a merge patch, a JSON
    /// Patch and a whole state with an `Idempotency-Key`, then deleted.
    @Test func drivesTheBackendRoutes() async throws {
        let server = try TabulaServer()
        let client = makeTabulaClient(baseURL: server.baseURL)
        let backend = makeTabulaClient(baseURL: server.baseURL, backendKey: TabulaServer.backendKey)

        let state = try Components.Schemas.NewSession.statePayload(additionalProperties: .init(unvalidatedValue: ["wifi": false]))
        let created = try await backend.createSession(body: .json(.init(state: state, subject: "user-42"))).created.body.json
        let refused = try await client.createSession(body: .json(.init(subject: "user-42")))
        #expect(try refused.unauthorized.body.application_problem_plus_json._type == "urn:tabula:problem:unauthorized")

        let read = try await backend.getSession(path: .init(id: created.id)).ok
        let record = try read.body.json
        #expect(record.subject == "user-42" && record.revision == 0)
        #expect(record.state.additionalProperties.value["wifi"] as? Bool == false)
        #expect(abs(record.createdAt.timeIntervalSinceNow) < 60 && record.lastUsedAt >= record.createdAt)
        #expect(read.headers.ETag == "\"0\"")
        _ = try await backend.getSession(path: .init(id: created.id), headers: .init(If_hyphen_None_hyphen_Match: "\"0\"")).notModified

        let patch = try OpenAPIValueContainer(unvalidatedValue: ["wifi": true])
        let written = try await backend.patchSessionState(
            path: .init(id: created.id),
            headers: .init(If_hyphen_Match: "\"0\""),
            body: .application_merge_hyphen_patch_plus_json(patch)
        ).ok
        #expect(try written.body.json.fromRevision == 0 && written.body.json.toRevision == 1)
        #expect(written.headers.ETag == "\"1\"")
        let stale = try await backend.patchSessionState(
            path: .init(id: created.id),
            headers: .init(If_hyphen_Match: "\"0\""),
            body: .application_merge_hyphen_patch_plus_json(patch)
        )
        let failed = try stale.preconditionFailed.body.application_problem_plus_json
        #expect(failed._type == "urn:tabula:problem:precondition-failed" && failed.currentRevision == 1)

        let jsonPatch: Components.Schemas.JSONPatch = [.init(op: .replace, path: "/bluetooth", value: true)]
        let patched = try await backend.patchSessionState(
            path: .init(id: created.id),
            headers: .init(If_hyphen_Match: "\"1\""),
            body: .application_json_hyphen_patch_plus_json(jsonPatch)
        ).ok.body.json
        #expect(patched.toRevision == 2)

        let whole = try Operations.putSessionState.Input.Body.jsonPayload(additionalProperties: .init(unvalidatedValue: ["wifi": false]))
        let put = try await backend.putSessionState(
            path: .init(id: created.id),
            headers: .init(If_hyphen_Match: "\"2\"", Idempotency_hyphen_Key: "put: wifi off"),
            body: .json(whole)
        ).ok
        #expect(try put.body.json.toRevision == 3 && put.headers.ETag == "\"3\"")
        let retried = try await backend.putSessionState(
            path: .init(id: created.id),
            headers: .init(If_hyphen_Match: "\"2\"", Idempotency_hyphen_Key: "put: wifi off"),
            body: .json(whole)
        ).ok.body.json
        #expect(retried == (try put.body.json))
        let screen = try await client.getScreen(path: .init(id: "settings"), headers: .init(X_hyphen_Session: created.session)).ok.body.json
        #expect(screen.revision == 3 && screen.sections.first?.rows.first?.isOn == false)
        let missing = try await backend.putSessionState(path: .init(id: created.id), headers: .init(If_hyphen_Match: "\"3\""), body: .json(.init()))
        _ = try missing.ok
        let record3 = try await backend.getSession(path: .init(id: created.id)).ok.body.json
        #expect(record3.state.additionalProperties.value["bluetooth"] as? Bool == false)

        #expect(try await backend.deleteSession(path: .init(id: created.id)).noContent == .init())
        #expect(try await backend.getSession(path: .init(id: created.id)).notFound.body.application_problem_plus_json.status == 404)
        let gone = try await client.getScreen(path: .init(id: "settings"), headers: .init(X_hyphen_Session: created.session))
        #expect(try gone.unauthorized.body.application_problem_plus_json._type == "urn:tabula:problem:unknown-session")
        #expect(try await client.deleteSession(path: .init(id: created.id)).unauthorized.body.application_problem_plus_json.status == 401)
    }

    /// A deployment seen through the generated types: the section loses its header (`null`
    /// in the change set), its footer becomes a custom kind with a number and a bool, and the
    /// style changes. Then a definition the service does not know.
    @Test func decodesADeploymentsChangeSet() async throws {
        let server = try TabulaServer()
        let client = makeTabulaClient(baseURL: server.baseURL)
        let token = try await client.createSession().created.body.json.session
        let before = try await client.getScreen(path: .init(id: "gauges"), headers: .init(X_hyphen_Session: token)).ok.body.json
        #expect(before.style == .grouped)

        let file = server.screens.appendingPathComponent("gauges.json")
        var definition = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var sections = try #require(definition["sections"] as? [[String: Any]])
        sections[0]["header"] = nil
        sections[0]["footer"] = ["kind": "levelHeader", "title": "Now", "level": "level * 2", "alert": "!alert"]
        definition["sections"] = sections
        definition["style"] = "plain"
        try JSONSerialization.data(withJSONObject: definition).write(to: file)
        try server.reloadDefinitions()

        let deployed = try await client.getChanges(
            path: .init(id: "gauges"),
            query: .init(since: 0, definition: before.definition),
            headers: .init(X_hyphen_Session: token)
        ).ok.body.json
        #expect(deployed.definition != before.definition)
        #expect(deployed.changes.style == .plain)
        let section = try #require(deployed.changes.sections.updated.first)
        #expect(section.header == nil)
        #expect(section.footer?.kind == "levelHeader")
        #expect(section.footer?.additionalProperties["level"] == .case2(6))
        #expect(section.footer?.additionalProperties["alert"] == .case3(true))

        let unknown = try await client.getChanges(
            path: .init(id: "gauges"),
            query: .init(since: 0, definition: "no-such-definition"),
            headers: .init(X_hyphen_Session: token)
        )
        #expect(try unknown.conflict.body.application_problem_plus_json._type == "urn:tabula:problem:unknown-definition")
    }

    /// The streams, which URLSession on Linux hands over only once they end: a screen's ends
    /// when its session is deleted (`event: gone`), the feed's when the server stops.
    @Test func opensTheStreams() async throws {
        let server = try TabulaServer()
        let client = makeTabulaClient(baseURL: server.baseURL)
        let backend = makeTabulaClient(baseURL: server.baseURL, backendKey: TabulaServer.backendKey)
        let created = try await client.createSession().created.body.json

        let refused = try await client.streamScreen(path: .init(id: "settings"), headers: .init(X_hyphen_Session: "no-such-token"))
        #expect(try refused.unauthorized.body.application_problem_plus_json._type == "urn:tabula:problem:unknown-session")

        let screenStream = Task {
            let body = try await client.streamScreen(path: .init(id: "settings"), headers: .init(X_hyphen_Session: created.session)).ok.body
                .text_event_hyphen_stream
            return try await String(collecting: body, upTo: 1 << 22)
        }
        try await waitForOpenStreams(1, client: client)
        _ = try await backend.deleteSession(path: .init(id: created.id)).noContent
        let screenEvents = try await screenStream.value
        #expect(screenEvents.hasPrefix("retry: 3000\n"))
        #expect(screenEvents.contains("event: screen\n") && screenEvents.contains("event: gone\n"))
        try await waitForOpenStreams(0, client: client)

        let feedStream = Task {
            let body = try await backend.streamFeed().ok.body.text_event_hyphen_stream
            return try await String(collecting: body, upTo: 1 << 22)
        }
        try await waitForOpenStreams(1, client: client)
        server.stop()
        let feedEvents = try await feedStream.value
        #expect(feedEvents.contains("event: entry\n"))
        #expect(feedEvents.contains("\"cause\":\"deleted\""))
    }

    /// Waits until the server's `/metrics` counts exactly `count` open streams.
    private func waitForOpenStreams(_ count: Int, client: Client) async throws {
        for _ in 0..<200 {
            let metrics = try await String(collecting: client.metrics().ok.body.plainText, upTo: 1 << 22)
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("tabula_open_streams ") }
            if let line, let value = Double(line.split(separator: " ")[1]), Int(value) == count { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("the server never counted \(count) open streams")
    }

    /// What the set-up of `makeTabulaClient` is for: without its middleware the runtime
    /// sends `If-Match: "0"` as `%220%22` and Tabula refuses every state write; without the
    /// fractional-seconds transcoder a session record does not decode.
    @Test func needsTheConfigurationAndTheMiddleware() async throws {
        let server = try TabulaServer()
        let backend = makeTabulaClient(baseURL: server.baseURL, backendKey: TabulaServer.backendKey)
        let created = try await backend.createSession().created.body.json

        let encoding = Client(
            serverURL: server.baseURL,
            configuration: Configuration(dateTranscoder: .iso8601WithFractionalSeconds),
            transport: URLSessionTransport(),
            middlewares: [BearerMiddleware(key: TabulaServer.backendKey)]
        )
        let refused = try await encoding.patchSessionState(
            path: .init(id: created.id),
            headers: .init(If_hyphen_Match: "\"0\""),
            body: .application_merge_hyphen_patch_plus_json(.init(unvalidatedValue: ["wifi": false]))
        )
        #expect(try refused.badRequest.body.application_problem_plus_json._type == "urn:tabula:problem:invalid-header")

        let wholeSeconds = Client(
            serverURL: server.baseURL,
            transport: URLSessionTransport(),
            middlewares: [HeaderParametersMiddleware(), BearerMiddleware(key: TabulaServer.backendKey)]
        )
        await #expect(throws: ClientError.self) { try await wholeSeconds.getSession(path: .init(id: created.id)) }
    }
}

/// The document keeps the shapes the generator reads and stays strict: `NullableHeaderFooter`
/// is `HeaderFooter` or null, nothing else, and `FeedEvent`, which admits null, is a feed
/// entry's `event` and nothing else.
@Test func nullableSchemasAreNoLooserThanTheWire() throws {
    let data = try Data(contentsOf: TabulaServer.repository.appendingPathComponent("openapi.json"))
    let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
    var headerFooter = try #require(schemas["HeaderFooter"] as? [String: Any])
    var nullable = try #require(schemas["NullableHeaderFooter"] as? [String: Any])
    #expect(headerFooter["type"] as? String == "object")
    #expect(nullable["type"] as? [String] == ["object", "null"])
    for key in ["type", "description"] {
        headerFooter[key] = nil
        nullable[key] = nil
    }
    #expect(NSDictionary(dictionary: headerFooter).isEqual(to: nullable))
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.components(separatedBy: "\"#/components/schemas/FeedEvent\"").count == 2, "FeedEvent admits null: use it only as FeedEntry.event")
}

/// Every operation of the document is called by the tests above, so that a new route is
/// driven through the generated client too.
@Test func everyOperationIsDriven() throws {
    let data = try Data(contentsOf: TabulaServer.repository.appendingPathComponent("openapi.json"))
    let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let paths = try #require(document["paths"] as? [String: [String: Any]])
    let operations = paths.values.flatMap { $0.values.compactMap { ($0 as? [String: Any])?["operationId"] as? String } }
    #expect(operations.count >= 27)
    let tests = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    for operation in operations {
        #expect(tests.contains(".\(operation)("), "no test calls \(operation)")
    }
}
