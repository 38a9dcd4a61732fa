import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaService
import TabulaTestSupport
import Testing

/// A screen on which every selection changes state and leaves its sender's mark: row
/// `client-N` flips `on` and sets `last` to `client N`. The final state depends on the
/// order of the events, so replaying them in another order gives another screen.
func loadCatalogue(clients: Int) throws -> Catalogue {
    let rows = (0..<clients).map { client in
        #"{"id": "client-\#(client)", "kind": "basic", "title": "Client \#(client)", "onSelect": [{"toggle": "on"}, {"set": {"last": "client \#(client)"}}]}"#
    }
    let definition = #"""
        {"id": "load", "title": "Load", "state": {"on": false, "last": "nobody"},
         "sections": [
           {"id": "status", "rows": [
             {"id": "last", "kind": "basic", "title": "last: {{last}}"},
             {"id": "on", "kind": "titleSwitch", "title": "On", "isOn": "on"}]},
           {"id": "clients", "rows": [\#(rows.joined(separator: ",\n"))]}]}
        """#
    return try Catalogue.load([DefinitionFile(name: "load.json", bytes: Array(definition.utf8))])
}

/// What one client was told about one of its events.
struct AcknowledgedEvent: Sendable {
    let client: Int
    let fromRevision: Int
    let toRevision: Int
    let changes: [UInt8]
}

/// Many clients on one session: nothing lost, nothing doubled, and the server's state is
/// the acknowledged events replayed in revision order.
@Suite(.serialized) struct SessionLoadTests {
    static let clients = 64
    static let eventsPerClient = 200

    @Test(arguments: [StoreKind.sqlite, .memory])
    func sixtyFourClientsOnOneSessionGetEveryRevisionOnce(store kind: StoreKind) throws {
        let catalogue = try loadCatalogue(clients: Self.clients)
        let definition = try #require(catalogue.screen(id: "load"))
        let factory = try StoreFactory(kind)
        let store = try factory.open(catalogue)
        let api = try APITestServer(catalogue: catalogue, store: store)
        defer {
            api.server.shutdown()
            store.close()
        }
        let session = try api.newSession()
        let started = ContinuousClock.now
        let (acknowledged, failures) = Self.sendConcurrently(port: api.port, session: session)
        let elapsed = ContinuousClock.now - started
        let total = Self.clients * Self.eventsPerClient
        print("SessionLoadTests[\(kind)]: \(acknowledged.count) events from \(Self.clients) clients in \(elapsed)")

        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.first ?? "")")
        let ordered = acknowledged.sorted { $0.toRevision < $1.toRevision }
        #expect(ordered.map(\.toRevision) == Array(1...total), "acknowledged revisions have gaps or duplicates")
        #expect(ordered.allSatisfy { $0.fromRevision == $0.toRevision - 1 })
        for client in 0..<Self.clients {
            #expect(acknowledged.filter { $0.client == client }.count == Self.eventsPerClient, "client \(client) lost answers")
        }
        guard ordered.map(\.toRevision) == Array(1...total) else { return }

        // Replay the events in revision order with the core, checking each answer's change
        // set against the one the replay gives: each event saw exactly its predecessor.
        var state = catalogue.initialState
        var screen = render(definition, state)
        var screenAt: [Int: Screen] = [0: screen]
        var wrongAnswers: [Int] = []
        for event in ordered {
            let (next, _) = try reduce(state, .select(row: "client-\(event.client)"), definition)
            // Incremental: the 64 client rows read no state and are reused.
            let nextScreen = render(definition, next, reusing: screen, renderedAt: state)
            if next.revision != event.toRevision
                || (try? ChangeSet(jsonBytes: event.changes)) != diff(old: screen, new: nextScreen)
            {
                wrongAnswers.append(event.toRevision)
            }
            state = next
            screen = nextScreen
            if event.toRevision >= total - 100 { screenAt[event.toRevision] = nextScreen }
        }
        print("SessionLoadTests[\(kind)]: replayed and compared \(ordered.count) answers in \(ContinuousClock.now - started - elapsed)")
        #expect(wrongAnswers.isEmpty, "\(wrongAnswers.count) answers differ from the replay, first at revision \(wrongAnswers.first ?? 0)")

        // The server's screen, its stored state and its catch-up all equal the replay.
        let served = try api.send("GET", "/v1/screens/load", session: session)
        #expect(screen == render(definition, state))
        #expect(try Screen(jsonBytes: served.body) == screen)
        let stored = try wait { completion in store.read(session: .token(session), SessionRead(), completion: completion) }?.current
        #expect(stored == state)
        let since = total - 50
        let catchUp = try api.send("GET", "/v1/screens/load/changes?since=\(since)", session: session)
        #expect(catchUp.status == 200)
        let changes = try ChangeSet(json: try #require(catchUp.json.objectValue?["changes"]))
        #expect(changes == diff(old: try #require(screenAt[since]), new: screen))
    }

    /// Each client sends its events one after another on its own keep-alive connection.
    static func sendConcurrently(port: UInt16, session: String) -> (acknowledged: [AcknowledgedEvent], failures: [String]) {
        let acknowledged = Locked<[AcknowledgedEvent]>([])
        let failures = Locked<[String]>([])
        concurrently(clients) { client in
            var mine: [AcknowledgedEvent] = []
            mine.reserveCapacity(eventsPerClient)
            do {
                let connection = try RawHTTPConnection(port: port, timeout: 30)
                let body = #"{"row": "client-\#(client)"}"#
                let request =
                    "POST /v1/screens/load/selection HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                for _ in 0..<eventsPerClient {
                    try connection.send(request)
                    let response = try connection.readResponse()
                    guard response.status == 200, let answer = response.json.objectValue,
                        let from = answer["fromRevision"]?.intValue, let to = answer["toRevision"]?.intValue, let changes = answer["changes"]
                    else {
                        failures.withLock { $0.append("client \(client): \(response.status) \(response.bodyText.prefix(200))") }
                        continue
                    }
                    mine.append(AcknowledgedEvent(client: client, fromRevision: from, toRevision: to, changes: changes.canonicalBytes))
                }
            } catch {
                failures.withLock { $0.append("client \(client): \(error)") }
            }
            acknowledged.withLock { $0.append(contentsOf: mine) }
        }
        return (acknowledged.withLock { $0 }, failures.withLock { $0 })
    }
}
