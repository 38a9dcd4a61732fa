import Foundation
import TabulaCore
import TabulaSamples
import TabulaTestSupport
import Testing

/// A client of a screen stream that does what an app does: it takes the screen from
/// `event: screen`, applies every `event: changes` to its copy, and remembers the id of
/// each event with the copy it had after it (to reconnect from any of them).
final class StreamClientCopy {
    let client: EventStreamClient
    private(set) var copy: Screen?
    private(set) var lastEventID: String?
    private(set) var history: [(id: String, copy: Screen)] = []
    private(set) var events: [String] = []
    private(set) var heartbeats = 0
    private(set) var gone = false

    init(_ client: EventStreamClient, startingFrom copy: Screen? = nil) {
        self.client = client
        self.copy = copy
    }

    /// Opens a stream of `screen` for `session` on `port`.
    convenience init(port: UInt16, screen: String, session: String?, query: String = "", headers: [String] = [], from copy: Screen? = nil) throws {
        var all = headers
        if let session { all.append("X-Session: \(session)") }
        try self.init(EventStreamClient(port: port, path: "/v1/screens/\(screen)/stream\(query)", headers: all), startingFrom: copy)
        #expect(client.head.status == 200, "\(client.head.status)")
    }

    /// Reads one event block and applies it; `false` once the stream ended.
    @discardableResult
    func readOne() throws -> Bool {
        guard let event = try client.next() else { return false }
        try apply(event)
        return true
    }

    func apply(_ event: ServerSentEvent) throws {
        if event.isHeartbeat {
            heartbeats += 1
            return
        }
        guard let name = event.event else { return }  // the opening `retry:`
        events.append(name)
        #expect(event.dataLines == 1, "an event has one data line")
        let data = Array((event.data ?? "").utf8)
        switch name {
        case "screen":
            copy = try Screen(jsonBytes: data)
        case "changes":
            let object = try #require(try JSONParser().parse(data).objectValue)
            let changes = try ChangeSet(json: try #require(object["changes"]))
            var next = try changes.applyChecked(to: try #require(copy, "changes before a screen"))
            next.revision = try #require(object["toRevision"]?.intValue)
            next.definition = try #require(object["definition"]?.stringValue)
            #expect(object["fromRevision"]?.intValue == copy?.revision || copy?.definition != next.definition)
            copy = next
        case "gone":
            gone = true
        default:
            Issue.record("unknown event \(name)")
        }
        if let id = event.id, let copy {
            #expect(id == "\(copy.definition ?? ""):\(copy.revision)", "the id names the copy after the event")
            lastEventID = id
            history.append((id, copy))
        }
    }

    /// Reads until the copy shows what `current` shows (its revision may be older: commits
    /// that did not change this screen send nothing), within `seconds`.
    func catchUp(to current: Screen, within seconds: Double = 10, _ what: String) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !(copy.map { Self.sameContent($0, current) } ?? false) {
            guard ContinuousClock.now < deadline, try readOne() else {
                Issue.record("\(what): the stream's copy did not reach the server's screen")
                return
            }
        }
    }

    static func sameContent(_ a: Screen, _ b: Screen) -> Bool {
        var a = a
        a.revision = b.revision
        a.definition = b.definition
        return a == b
    }
}
