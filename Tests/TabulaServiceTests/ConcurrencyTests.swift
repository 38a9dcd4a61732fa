import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport
import Testing

/// A screen whose one row flips a bool on every selection: every event changes state.
func flipCatalogue() throws -> Catalogue {
    try Catalogue.load([
        DefinitionFile(
            name: "flip.json",
            bytes: Array(
                #"""
                {"id": "flip", "title": "Flip", "state": {"on": false},
                 "sections": [{"id": "s", "rows": [{"id": "flip", "kind": "titleSwitch", "title": "Flip", "isOn": "on", "onSelect": {"toggle": "on"}}]}]}
                """#.utf8))
    ])
}

/// Runs `body(clientIndex)` on `count` threads at once and waits for all.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Job: @unchecked Sendable {
        let index: Int
        let body: @Sendable (Int) -> Void
        init(_ index: Int, _ body: @escaping @Sendable (Int) -> Void) { self.index = index; self.body = body }
    }
    var threads: [pthread_t] = []
    for index in 0..<count {
        var thread = pthread_t()
        pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let job = Unmanaged<Job>.fromOpaque(argument).takeRetainedValue()
                job.body(job.index)
                return nil
            }, Unmanaged.passRetained(Job(index, body)).toOpaque())
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

@Suite struct ConcurrencyTests {
    @Test func sixteenClientsOnOneSessionLoseNoUpdate() throws {
        let api = try APITestServer(catalogue: try flipCatalogue())
        let session = try api.newSession()
        let clients = 16
        let eventsPerClient = 25
        let (revisions, failures) = selectConcurrently(
            ports: [api.port], screen: "flip", row: "flip", session: session, clients: clients, events: eventsPerClient)
        #expect(failures == [])
        let total = clients * eventsPerClient
        #expect(revisions.sorted() == Array(1...total))
        #expect(try api.revision(session, screen: "flip") == total)
        // An even number of flips leaves the switch off.
        let screen = try Screen(jsonBytes: try api.send("GET", "/v1/screens/flip", session: session).body)
        #expect(screen.sections[0].rows[0].content == .titleSwitch(title: "Flip", isOn: total % 2 == 1))
    }
}

/// `clients` clients, each on its own connection (to `ports` in turn), send `events`
/// selections of `row` on one session; returns the acknowledged revisions and failures.
func selectConcurrently(
    ports: [UInt16], screen: String, row: String, session: String, clients: Int, events: Int
) -> (revisions: [Int], failures: [String]) {
    let revisions = Locked<[Int]>([])
    let failures = Locked<[String]>([])
    concurrently(clients) { client in
        do {
            let connection = try RawHTTPConnection(port: ports[client % ports.count], timeout: 30)
            for index in 0..<events {
                let body = #"{"row": "\#(row)", "eventId": "c\#(client)-\#(index)"}"#
                try connection.send(
                    "POST /v1/screens/\(screen)/selection HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                )
                let response = try connection.readResponse()
                if response.status == 200, let revision = response.json.objectValue?["toRevision"]?.intValue {
                    revisions.withLock { $0.append(revision) }
                } else {
                    failures.withLock { $0.append("\(response.status) \(response.bodyText)") }
                }
            }
        } catch {
            failures.withLock { $0.append("\(error)") }
        }
    }
    return (revisions.withLock { $0 }, failures.withLock { $0 })
}
