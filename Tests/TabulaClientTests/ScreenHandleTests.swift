import Foundation
import TabulaClient
import TabulaClientURLSession
import TabulaModel
import TabulaTestSupport
import Testing

/// A screen handle against a real `tabula serve`, while everything around it goes wrong:
/// another client and the backend change the same session, a proxy cuts connections at
/// random, the service is killed with SIGKILL and restarted on the same SQLite data, a
/// definition changes under `--watch`, and at last the session is deleted. After each quiet
/// point the handle's screen is the one `GET` answers, and the feed shows every event once.
@Suite(.serialized) struct ScreenHandleTests {
    static var fast: TabulaSession.Configuration {
        var configuration = TabulaSession.Configuration()
        configuration.heartbeat = .seconds(1)
        configuration.maximumReconnectDelay = .seconds(2)
        configuration.requestTimeout = .seconds(5)
        return configuration
    }

    @Test(.timeLimit(.minutes(5))) func followsEveryChangeThroughFaults() async throws {
        let service = try LiveService()
        let session = try await TabulaSession.create(baseURL: service.url, configuration: Self.fast, transport: URLSessionTransport())
        defer { session.close() }
        let toggles = UpdateRecorder(session.screen("protocol-settings"))
        let form = UpdateRecorder(session.screen("join-network"))
        try await toggles.waitForScreen()
        try await form.waitForScreen()
        let sessionID = try service.sessionID(token: session.token)

        var random = SystemRandomNumberGenerator()
        var toggled = 0
        var sentToggles: [Bool] = []
        var typed = ""
        let letters = Array("abcdefghij klmnop")
        for round in 0..<4 {
            for _ in 0..<30 {
                switch random.next() % 8 {
                case 0, 1, 2:
                    let isOn = await toggles.handle.screen?.switchState("offline-maps") ?? false
                    await toggles.handle.send(.toggle(row: "offline-maps", isOn: !isOn))
                    sentToggles.append(!isOn)
                    toggled += 1
                case 3, 4, 5:
                    // Typing and erasing, faster than answers come: edits of one row coalesce.
                    if typed.count > 12 || (random.next() % 4 == 0 && !typed.isEmpty) {
                        typed.removeLast()
                    } else {
                        typed.append(letters[Int(random.next() % UInt64(letters.count))])
                    }
                    await form.handle.send(.edit(row: "name", value: .string(typed)))
                case 6:
                    // Another client, on the same session.
                    let body = #"{"row":"departure-reminder","isOn":\#(random.next() % 2 == 0)}"#
                    _ = try? service.request(
                        "POST", "/v1/screens/protocol-settings/switch",
                        headers: ["X-Session: \(session.token)", "Content-Type: application/json"], body: body)
                default:
                    // The backend, on the row the other client changes: the handle owns the other.
                    try service.patchState(sessionID: sessionID, #"{"departureReminder": \#(random.next() % 2 == 0)}"#)
                }
                if random.next() % 6 == 0 { service.proxy.cutConnections() }
                try await Task.sleep(for: .milliseconds(Int(random.next() % 40)))
            }
            switch round {
            case 1:
                try service.killAndRestart()
            case 2:
                try service.changeDefinition("protocol-settings")
            default:
                break
            }
            try await toggles.waitUntilCurrent(service, token: session.token)
            try await form.waitUntilCurrent(service, token: session.token)
        }

        // The user's last keystroke is what the service holds: none was lost.
        let name = try service.screen("join-network", token: session.token).row("name")
        #expect(name?.content.inputValue == .string(typed))
        // Each toggle applied once: one feed entry each, and no event id twice.
        let entries = try service.feed().filter { $0["session"]?.stringValue == sessionID && $0["cause"]?.stringValue == "event" }
        let events = entries.compactMap { $0["event"]?.objectValue }
        let ids = events.compactMap { $0["eventId"]?.stringValue }
        #expect(Set(ids).count == ids.count)
        let toggleEntries = events.filter { $0["row"]?.stringValue == "offline-maps" }
        #expect(toggleEntries.count == toggled, "sent \(sentToggles), the feed has \(toggleEntries.map { $0["isOn"]?.boolValue ?? false })")
        #expect(await toggles.refusals == 0)
        #expect(await form.refusals == 0)

        // The session deleted: both handles end, saying why.
        #expect(try service.backend("DELETE", "/v1/sessions/\(sessionID)").status == 204)
        let ends = [try await toggles.waitForEnd(), try await form.waitForEnd()]
        for end in ends {
            guard case .sessionEnded = end else {
                Issue.record("ended with \(end)")
                continue
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func anUnknownTokenEndsTheHandle() async throws {
        let service = try LiveService()
        let session = TabulaSession(
            baseURL: service.url, token: "never-issued-token-0123456789abcdef", configuration: Self.fast, transport: URLSessionTransport())
        defer { session.close() }
        let recorder = UpdateRecorder(session.screen("settings"))
        guard case .sessionEnded = try await recorder.waitForEnd() else {
            Issue.record("the handle did not end with sessionEnded")
            return
        }
    }

    /// The screen at the defaults, without a session: a screen and an item that exist come
    /// back; one that does not is a refusal whose end reason says asking again cannot help.
    @Test(.timeLimit(.minutes(1))) func theDefaultScreenIsFetchedWithoutASession() async throws {
        let service = try LiveService()
        let transport = URLSessionTransport()
        defer { transport.close() }
        let screen = try await TabulaSession.defaultScreen("settings", baseURL: service.url, transport: transport)
        #expect(screen.id == "settings" && screen.revision == 0)
        for (id, item) in [("nosuch", nil), ("people-details", "nobody"), ("people-details", nil)] as [(String, String?)] {
            let refusal: ClientError
            do {
                _ = try await TabulaSession.defaultScreen(id, item: item, baseURL: service.url, transport: transport)
                Issue.record("\(id) \(item ?? "-") came back")
                continue
            } catch {
                refusal = error
            }
            guard case .problem(let problem) = refusal else {
                Issue.record("\(id) \(item ?? "-"): \(refusal)")
                continue
            }
            let reason = EndReason(refusingScreenRequest: problem)
            switch (id, reason) {
            case ("nosuch", .screenRemoved?), ("people-details", .itemRemoved?): break
            default: Issue.record("\(id) \(item ?? "-"): \(problem), \(String(describing: reason))")
            }
        }
        let metrics = try service.request("GET", "/metrics").bodyText
        let sessions = metrics.split(separator: "\n").first { $0.hasPrefix("tabula_sessions ") }
        #expect(sessions.flatMap { Double($0.dropFirst("tabula_sessions ".count)) } == 0, "\(metrics)")
    }

    /// An answer that does not start from the copy (the stream brought another client's
    /// change while the event was on its way) is a gap: the handle fetches the screen and
    /// publishes it whole, and never asks for `changes?since=`.
    @Test(.timeLimit(.minutes(1))) func anAnswerThatDoesNotFitTheCopyFetchesTheScreenWhole() async throws {
        let service = try LiveService()
        let transport = GatedTransport(URLSessionTransport())
        // The event names revision 0, and waits at the gate.
        let (session, toggles, isOn) = try await toggleHeldAtTheGate(service, transport)
        defer { session.close() }
        // Another client's change reaches the copy through the stream: revision 1.
        let other = try service.request(
            "POST", "/v1/screens/protocol-settings/switch", headers: ["X-Session: \(session.token)", "Content-Type: application/json"],
            body: #"{"row":"departure-reminder","isOn":false}"#)
        #expect(other.status == 200)
        try await toggles.poll("the copy at revision 1") { await toggles.handle.screen?.revision == 1 }
        // The event commits revision 2; its answer goes from 0, the copy it named.
        try await releaseEventBeforeStream(transport, toggles, wholeAt: 2)
        try await toggles.waitUntilCurrent(service, token: session.token)
        #expect(!transport.paths.contains { $0.contains("/changes") }, "\(transport.paths)")
        #expect(try service.screen("protocol-settings", token: session.token).switchState("offline-maps") == !isOn)
    }

    /// An answer goes from the copy its event named: when a deployment reached the copy
    /// while the event was on its way, the answer does not fit it, revision or not.
    @Test(.timeLimit(.minutes(1))) func anAnswerFromACopyOfAnotherDefinitionFetchesTheScreenWhole() async throws {
        let service = try LiveService()
        let transport = GatedTransport(URLSessionTransport())
        let (session, toggles, _) = try await toggleHeldAtTheGate(service, transport)
        defer { session.close() }
        let named = try #require(await toggles.handle.screen?.definition)
        // A deployment reaches the copy through the stream: the same revision, another definition.
        try service.changeDefinition("protocol-settings")
        try await toggles.poll("the copy of the new definition") { await toggles.handle.screen?.definition != named }
        try await releaseEventBeforeStream(transport, toggles, wholeAt: 1)
        try await toggles.waitUntilCurrent(service, token: session.token)
    }

    /// A session whose handle on protocol-settings sent a switch event that waits at the
    /// gate, naming revision 0; and the switch's state before it.
    func toggleHeldAtTheGate(
        _ service: LiveService, _ transport: GatedTransport
    ) async throws -> (session: TabulaSession, toggles: UpdateRecorder, isOn: Bool) {
        let session = try await TabulaSession.create(baseURL: service.url, configuration: Self.fast, transport: transport)
        let toggles = UpdateRecorder(session.screen("protocol-settings"))
        try await toggles.waitForScreen()
        #expect(await toggles.handle.screen?.revision == 0)
        transport.holdEvents(true)
        let isOn = await toggles.handle.screen?.switchState("offline-maps") ?? false
        await toggles.handle.send(.toggle(row: "offline-maps", isOn: !isOn))
        try await toggles.poll("the event at the gate") { transport.waitingEvents == 1 }
        return (session, toggles, isOn)
    }

    /// Lets the event at the gate go with the stream held, so that its answer comes before
    /// the stream's change set for it; waits for the whole screen the handle publishes at
    /// `revision`, then lets the stream go.
    func releaseEventBeforeStream(_ transport: GatedTransport, _ toggles: UpdateRecorder, wholeAt revision: Int) async throws {
        transport.holdStream(true)
        let wholeBefore = await toggles.wholeScreens
        transport.holdEvents(false)
        try await toggles.poll("a whole screen at revision \(revision)") {
            let whole = await toggles.wholeScreens
            let current = await toggles.handle.screen?.revision
            return whole > wholeBefore && current == revision
        }
        transport.holdStream(false)
    }

    /// An event refused with a 409 (its copy's revision was dropped meanwhile) is sent again
    /// from the screen fetched whole, and that screen already shows what the user did.
    @Test(.timeLimit(.minutes(1))) func anEventSentAgainAfterA409KeepsShowingTheUsersChange() async throws {
        let service = try LiveService(["--keep-revisions", "1"])
        let transport = GatedTransport(URLSessionTransport())
        let (session, toggles, isOn) = try await toggleHeldAtTheGate(service, transport)
        defer { session.close() }
        // Two changes of another client: revision 0, which the event names, is dropped.
        for value in [false, true] {
            let other = try service.request(
                "POST", "/v1/screens/protocol-settings/switch", headers: ["X-Session: \(session.token)", "Content-Type: application/json"],
                body: #"{"row":"departure-reminder","isOn":\#(value)}"#)
            #expect(other.status == 200)
        }
        try await toggles.poll("the copy at revision 2") { await toggles.handle.screen?.revision == 2 }
        let publishedBefore = await toggles.screens.count
        transport.holdEvents(false)
        try await toggles.waitUntilCurrent(service, token: session.token)
        for screen in await toggles.screens.dropFirst(publishedBefore) {
            #expect(screen.switchState("offline-maps") == !isOn, "a screen published before the event was applied again showed the switch back")
        }
        #expect(try service.screen("protocol-settings", token: session.token).switchState("offline-maps") == !isOn)
    }

    /// The stream brings the commit of the user's switch, then another client's change of
    /// it, before the switch's answer comes: once the answer comes, the screen shows what
    /// the service holds, not the user's value the service has since changed.
    @Test(.timeLimit(.minutes(1))) func aValueChangedSinceItsAnswerIsShownOnceTheAnswerComes() async throws {
        let (service, transport, session, toggles) = try await gatedHandle("protocol-settings")
        defer { session.close() }
        let isOn = await toggles.handle.screen?.switchState("offline-maps") ?? false
        transport.holdAnswers(true)
        await toggles.handle.send(.toggle(row: "offline-maps", isOn: !isOn))
        try await toggles.poll("the answer at the gate") { transport.waitingAnswers == 1 }
        let other = try service.request(
            "POST", "/v1/screens/protocol-settings/switch", headers: ["X-Session: \(session.token)", "Content-Type: application/json"],
            body: #"{"row":"offline-maps","isOn":\#(isOn)}"#)
        #expect(other.status == 200)
        try await toggles.poll("the copy at revision 2") { await toggles.handle.screen?.revision == 2 }
        #expect(await toggles.handle.screen?.switchState("offline-maps") == !isOn, "the user's value shows while its answer is awaited")
        transport.holdAnswers(false)
        try await toggles.waitUntilCurrent(service, token: session.token)
        #expect(await toggles.handle.screen?.switchState("offline-maps") == isOn)
    }

    /// A row dropped while an event is in flight, and another client's move before it is
    /// sent: the move sent names the place after the row it was dropped after, in the copy
    /// it names, so the service keeps it there and it never moves a second time.
    @Test(.timeLimit(.minutes(1))) func aDropSentAfterOtherMovesKeepsItsPlace() async throws {
        let (service, transport, session, inbox) = try await gatedHandle("inbox")
        defer { session.close() }
        let favourites = { (screen: Screen) in screen.sections[0].rows.map(\.id) }
        #expect(await inbox.handle.screen.map(favourites) == ["favourite-ann", "favourite-bob", "favourite-chloe", "favourite-grace"])
        transport.holdEvents(true)
        await inbox.handle.send(.move(row: "favourite-ann", to: RowPath(section: 0, row: 1)))
        try await inbox.poll("the first move at the gate") { transport.waitingEvents == 1 }
        await inbox.handle.send(.move(row: "favourite-grace", to: RowPath(section: 0, row: 2)))
        #expect(await inbox.handle.screen.map(favourites) == ["favourite-bob", "favourite-ann", "favourite-grace", "favourite-chloe"])
        let publishedBefore = await inbox.screens.count
        // Another client puts chloe first: every index below it moves.
        let other = try service.request(
            "POST", "/v1/screens/inbox/move", headers: ["X-Session: \(session.token)", "Content-Type: application/json"],
            body: #"{"row":"favourite-chloe","to":{"section":0,"row":0}}"#)
        #expect(other.status == 200, "\(other.bodyText)")
        try await inbox.poll("the other client's move") { await inbox.handle.screen?.revision == 1 }
        transport.holdEvents(false)
        try await inbox.waitUntilCurrent(service, token: session.token)
        for screen in await inbox.screens.dropFirst(publishedBefore) {
            let rows = favourites(screen)
            #expect(rows.firstIndex(of: "favourite-grace") == rows.firstIndex(of: "favourite-ann").map { $0 + 1 }, "\(rows)")
        }
        let held = favourites(try service.screen("inbox", token: session.token))
        #expect(held.firstIndex(of: "favourite-grace") == held.firstIndex(of: "favourite-ann").map { $0 + 1 }, "\(held)")
    }

    /// A keystroke made after a submit waits behind it: coalescing it into an earlier edit
    /// of the row would send it before the submit, whose values then overwrite it.
    @Test(.timeLimit(.minutes(1))) func aKeystrokeAfterASubmitIsSentAfterIt() async throws {
        let (service, transport, session, form) = try await gatedHandle("join-network")
        defer { session.close() }
        transport.holdEvents(true)
        await form.handle.send(.edit(row: "name", value: .string("a")))
        try await form.poll("the first keystroke at the gate") { transport.waitingEvents == 1 }
        await form.handle.send(.edit(row: "name", value: .string("ab")))
        await form.handle.send(.selection(row: "join", values: ["name": .string("ab"), "password": .string("correct horse")]))
        await form.handle.send(.edit(row: "name", value: .string("abc")))
        transport.holdEvents(false)
        try await form.waitUntilCurrent(service, token: session.token)
        let held = try service.screen("join-network", token: session.token)
        #expect(held.row("name")?.content.inputValue == .string("abc"), "the last keystroke is the field's value")
        #expect(await form.handle.screen?.row("name")?.content.inputValue == .string("abc"))
    }

    /// A new session's handle on `screen`, through a ``GatedTransport``, once it shows the screen.
    func gatedHandle(_ screen: String) async throws -> (LiveService, GatedTransport, TabulaSession, UpdateRecorder) {
        let service = try LiveService()
        let transport = GatedTransport(URLSessionTransport())
        let session = try await TabulaSession.create(baseURL: service.url, configuration: Self.fast, transport: transport)
        let recorder = UpdateRecorder(session.screen(screen))
        try await recorder.waitForScreen()
        return (service, transport, session, recorder)
    }

    /// Two rows dragged before the first answer: every screen published shows both where
    /// the user dropped them, so that no row goes back to be moved again.
    @Test(.timeLimit(.minutes(1))) func droppedRowsStayWhereTheUserDroppedThem() async throws {
        let service = try LiveService()
        let session = try await TabulaSession.create(baseURL: service.url, configuration: Self.fast, transport: URLSessionTransport())
        defer { session.close() }
        let inbox = UpdateRecorder(session.screen("inbox"))
        try await inbox.waitForScreen()
        let favourites = { (screen: Screen) in screen.sections[0].rows.map(\.id) }
        #expect(await inbox.handle.screen.map(favourites) == ["favourite-ann", "favourite-bob", "favourite-chloe", "favourite-grace"])
        service.proxy.freeze(true)
        await inbox.handle.send(.move(row: "favourite-ann", to: RowPath(section: 0, row: 1)))
        await inbox.handle.send(.move(row: "favourite-grace", to: RowPath(section: 0, row: 0)))
        let dropped = ["favourite-grace", "favourite-bob", "favourite-ann", "favourite-chloe"]
        #expect(await inbox.handle.screen.map(favourites) == dropped)
        let publishedBefore = await inbox.screens.count
        service.proxy.freeze(false)
        try await inbox.waitUntilCurrent(service, token: session.token)
        for screen in await inbox.screens.dropFirst(publishedBefore) {
            #expect(favourites(screen) == dropped, "a screen published before the answers showed the rows elsewhere")
        }
        #expect(favourites(try service.screen("inbox", token: session.token)) == dropped)
    }

    @Test(.timeLimit(.minutes(1))) func anEditAnswerKeepsWhatTheUserTypedSince() async throws {
        let service = try LiveService()
        let session = try await TabulaSession.create(baseURL: service.url, configuration: Self.fast, transport: URLSessionTransport())
        defer { session.close() }
        let form = UpdateRecorder(session.screen("join-network"))
        try await form.waitForScreen()
        // Freeze the network so that the keystrokes pile up while the first is in flight.
        service.proxy.freeze(true)
        for text in ["H", "Ho", "Hom", "Home"] { await form.handle.send(.edit(row: "name", value: .string(text))) }
        #expect(await form.handle.screen?.row("name")?.content.inputValue == .string("Home"))
        service.proxy.freeze(false)
        try await form.waitUntilCurrent(service, token: session.token)
        // Every screen published showed the newest keystroke: none went back to "H".
        for screen in await form.screens {
            if let value = screen.row("name")?.content.inputValue, value != .string("") {
                #expect(value == .string("Home"))
            }
        }
        #expect(try service.screen("join-network", token: session.token).row("name")?.content.inputValue == .string("Home"))
    }
}

/// Reads a handle's updates as they come, keeping what a test asks about.
actor UpdateRecorder {
    let handle: ScreenHandle
    private(set) var screens: [Screen] = []
    /// How many of them came whole (`.screen`), not as a change set.
    private(set) var wholeScreens = 0
    private(set) var refusals = 0
    private(set) var end: EndReason?
    private var reader: Task<Void, Never>?

    init(_ handle: ScreenHandle) {
        self.handle = handle
        Task { await self.startReading() }
    }

    private func startReading() async {
        await handle.start()
        reader = Task {
            for await update in handle.updates { record(update) }
        }
    }

    private func record(_ update: ScreenUpdate) {
        switch update {
        case .changes(_, let screen): screens.append(screen)
        case .screen(let screen):
            screens.append(screen)
            wholeScreens += 1
        case .refused(let event, let problem):
            Issue.record("refused \(event): \(problem)")
            refusals += 1
        case .answered: break
        case .ended(let reason): end = reason
        }
    }

    func waitForScreen() async throws {
        try await poll("a first screen") { !self.screens.isEmpty }
    }

    func waitForEnd() async throws -> EndReason {
        try await poll("the end of the handle") { self.end != nil }
        return end ?? .closed
    }

    /// Waits until the handle has sent every event and its screen is the one `GET` answers.
    /// Its revision may be older:
    /// the session's revision counts commits on every screen, and a commit that does not
    /// change this screen sends its stream nothing.
    func waitUntilCurrent(_ service: LiveService, token: String) async throws {
        let id = handle.screenID
        do {
            try await poll("\(id) to equal GET") {
                guard await !self.handle.hasPendingEvents, var shown = await self.handle.screen,
                    let current = try? service.screen(id, token: token),
                    shown.revision <= current.revision
                else { return false }
                shown.revision = current.revision
                return shown == current
            }
        } catch {
            let shown = await handle.screen.map { String(decoding: $0.jsonBytes, as: UTF8.self) } ?? "none"
            let current = (try? service.screen(id, token: token)).map { String(decoding: $0.jsonBytes, as: UTF8.self) } ?? "none"
            throw ServerProcessError("\(error)\nthe handle shows \(shown)\nGET answers   \(current)")
        }
    }

    func poll(_ what: String, seconds: Double = 30, _ done: () async -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if await done() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerProcessError("timed out waiting for \(what)")
    }
}

extension Screen {
    func row(_ id: String) -> Row? { path(ofRow: id).flatMap { row(at: $0) } }

    func switchState(_ id: String) -> Bool? {
        if case .titleSwitch(_, let isOn) = row(id)?.content { isOn } else { nil }
    }
}

extension LiveService {
    /// The session's public id: the feed's entry of its creation names it.
    func sessionID(token: String) throws -> String {
        let answer = try request("PUT", "/v1/session/client", headers: ["X-Session: \(token)", "Content-Type: application/json"], body: "{}")
        guard answer.status == 200 else { throw ServerProcessError("PUT client: \(answer.status) \(answer.bodyText)") }
        guard let entry = try feed().last(where: { $0["cause"]?.stringValue == "created" }), let id = entry["session"]?.stringValue else {
            throw ServerProcessError("no session in the feed")
        }
        return id
    }

    /// A backend's merge patch of the session's state, at its current revision (a race with
    /// an event is a 412, and is tried again).
    func patchState(sessionID: String, _ patch: String) throws {
        for _ in 0..<5 {
            let current = try backend("GET", "/v1/sessions/\(sessionID)")
            guard let etag = current.header("ETag") else { throw ServerProcessError("no ETag: \(current.status)") }
            let answer = try backend(
                "PATCH", "/v1/sessions/\(sessionID)/state", headers: ["If-Match: \(etag)", "Content-Type: application/merge-patch+json"],
                body: patch)
            if answer.status == 200 || answer.status == 422 { return }
            guard answer.status == 412 else { throw ServerProcessError("PATCH: \(answer.status) \(answer.bodyText)") }
        }
    }

    /// Edits a title in a definition of the watched directory, a deployment while serving, and
    /// waits until the service serves it.
    func changeDefinition(_ screen: String) throws {
        let before = try request("GET", "/v1/screens/\(screen)")
        let file = screens.appendingPathComponent("\(screen).json")
        let text = try String(contentsOf: file, encoding: .utf8)
        guard let range = text.range(of: #""title": ""#) else { throw ServerProcessError("no title in \(screen)") }
        try text.replacingCharacters(in: range, with: #""title": "New "#).write(to: file, atomically: true, encoding: .utf8)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try request("GET", "/v1/screens/\(screen)").header("ETag") != before.header("ETag") { return }
            usleep(50_000)
        }
        throw ServerProcessError("the service did not reload \(screen)")
    }
}
