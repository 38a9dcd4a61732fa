import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaSQLite
import TabulaTestSupport
import Testing

@testable import TabulaService

/// Three switches that every selection flips: every event changes state, and a replay of
/// the log has something to get wrong.
let togglesDefinition = #"""
    {"id": "toggles", "title": "Toggles", "state": {"a": false, "b": false, "c": false},
     "sections": [{"id": "s", "rows": [
       {"id": "a", "kind": "titleSwitch", "title": "A", "isOn": "a", "onSelect": {"toggle": "a"}},
       {"id": "b", "kind": "titleSwitch", "title": "B", "isOn": "b", "onSelect": [{"toggle": "b"}, {"toggle": "a"}]},
       {"id": "c", "kind": "titleSwitch", "title": "C", "isOn": "c", "onSelect": {"toggle": "c"}}
     ]}]}
    """#

/// A directory holding the toggles screen, and its catalogue.
func togglesScreens() throws -> (directory: URL, catalogue: Catalogue) {
    let directory = try makeTemporaryDirectory()
    try Data(togglesDefinition.utf8).write(to: directory.appendingPathComponent("toggles.json"))
    let catalogue = try Catalogue.load([DefinitionFile(name: "toggles.json", bytes: Array(togglesDefinition.utf8))])
    return (directory, catalogue)
}

/// Six clients select the toggles screen's rows on `sessions`, with event ids, until the
/// server is killed (SIGKILL) a random time (`killAfter`, microseconds) in; the events
/// acknowledged.
func selectUntilKilled(
    _ server: ServerProcess, sessions: [String], iteration: Int, killAfter: ClosedRange<UInt32> = 150_000...450_000
) -> [Acknowledgement] {
    let acks = Locked<[Acknowledgement]>([])
    let port = server.port
    let killer = WorkerThreadHandle.start {
        usleep(UInt32.random(in: killAfter))
        server.signal(SIGKILL)
    }
    concurrently(6) { client in
        guard let connection = try? RawHTTPConnection(port: port, timeout: 5) else { return }
        let session = sessions[client % sessions.count]
        for index in 0..<10_000 {
            let eventID = "i\(iteration)-c\(client)-\(index)"
            guard
                let response = try? select(
                    connection, screen: "toggles", row: ["a", "b", "c"].randomElement() ?? "a", session: session, eventID: eventID),
                response.status == 200, let revision = response.json.objectValue?["toRevision"]?.intValue
            else { return }
            acks.withLock { $0.append(Acknowledgement(session: session, eventID: eventID, revision: revision)) }
        }
    }
    killer.join()
    #expect(server.waitForExit(seconds: 5) != nil)
    return acks.withLock { $0 }
}

/// An acknowledged event: the client got 200 with this revision.
struct Acknowledgement: Sendable {
    let session: String
    let eventID: String
    let revision: Int
}

func createSession(port: UInt16) throws -> String {
    let connection = try RawHTTPConnection(port: port)
    try connection.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
    let response = try connection.readResponse()
    guard let token = try JSONParser().parse(response.body).objectValue?["session"]?.stringValue else {
        throw ServerProcessError("no session: \(response.status) \(response.bodyText)")
    }
    return token
}

func select(_ connection: RawHTTPConnection, screen: String, row: String, session: String, eventID: String) throws -> RawHTTPResponse {
    let body = #"{"row": "\#(row)", "eventId": "\#(eventID)"}"#
    try connection.send(
        "POST /v1/screens/\(screen)/selection HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    )
    return try connection.readResponse()
}

@Suite(.serialized) struct DurabilityTests {
    @Test func killedMidLoadTenTimesLosesNoAcknowledgedEvent() throws {
        let (screens, catalogue) = try togglesScreens()
        let data = try makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: screens)
            try? FileManager.default.removeItem(at: data)
        }
        let arguments = ["--store", "sqlite", "--data-dir", data.path, "--screens", screens.path, "--keep-revisions", "1000000", "--log-level", "notice"]
        var sessions: [String] = []
        var acknowledged: [Acknowledgement] = []
        for iteration in 0..<10 {
            let server = try ServerProcess(arguments: arguments)
            if sessions.isEmpty { sessions = try (0..<3).map { _ in try createSession(port: server.port) } }
            acknowledged += selectUntilKilled(server, sessions: sessions, iteration: iteration)
            try checkLog(data.appendingPathComponent("tabula.sqlite").path, sessions: sessions, acknowledged: acknowledged, catalogue: catalogue)
        }
        #expect(acknowledged.count > 100, "the load was too small to mean anything: \(acknowledged.count)")
        // The restarted service serves the state the log ends with.
        let server = try ServerProcess(arguments: arguments)
        let connection = try RawHTTPConnection(port: server.port)
        for session in sessions {
            try connection.send("GET /v1/screens/toggles HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n")
            let revision = try connection.readResponse().json.objectValue?["revision"]?.intValue ?? -1
            let highest = acknowledged.filter { $0.session == session }.map(\.revision).max() ?? 0
            #expect(revision >= highest)
        }
    }

    /// Every acknowledged event is in the log at its revision; revisions are gapless from
    /// 0; replaying the log from the initial state gives every stored state.
    func checkLog(_ path: String, sessions: [String], acknowledged: [Acknowledgement], catalogue: Catalogue) throws {
        let database = try SQLiteDatabase(path: path)
        let definition = try #require(catalogue.screen(id: "toggles"))
        let events = try database.prepare("SELECT revision, event_id, payload, state FROM events WHERE token_hash = ? ORDER BY revision")
        for session in sessions {
            let rows = try events.rows([.text(testDigest(session))])
            let revisions = rows.compactMap { $0[0].integer }.map(Int.init)
            #expect(revisions == Array(0..<rows.count), "revisions are not gapless for \(session.prefix(8))")
            var state = catalogue.initialState
            for row in rows.dropFirst() {
                let payload = try JSONParser().parse(row[2].blob ?? [])
                let rowID = try #require(payload.objectValue?["row"]?.stringValue)
                state = try reduce(state, .select(row: rowID), definition).state
                let stored = try SessionState(storedValues: try JSONParser().parse(row[3].blob ?? []), revision: state.revision)
                #expect(stored == state, "the log does not replay at revision \(state.revision)")
            }
            let logged = Dictionary(uniqueKeysWithValues: rows.compactMap { row in row[1].text.map { ($0, Int(row[0].integer ?? -1)) } })
            for ack in acknowledged where ack.session == session {
                #expect(logged[ack.eventID] == ack.revision, "acknowledged event \(ack.eventID) at \(ack.revision) is not in the log")
            }
        }
    }

    @Test func twoInstancesShareOnePostgreSQL() throws {
        let url = try PostgresCluster.shared.get().makeDatabase()
        let (screens, _) = try togglesScreens()
        defer { try? FileManager.default.removeItem(at: screens) }
        let arguments = ["--store", "postgres", "--database-url", url, "--screens", screens.path, "--log-level", "notice"]
        let first = try ServerProcess(arguments: arguments)
        let second = try ServerProcess(arguments: arguments)
        let session = try createSession(port: first.port)
        let onFirst = try RawHTTPConnection(port: first.port)
        #expect(try select(onFirst, screen: "toggles", row: "a", session: session, eventID: "x").status == 200)
        let onSecond = try RawHTTPConnection(port: second.port)
        try onSecond.send("GET /v1/screens/toggles/changes?since=0 HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n")
        let changes = try onSecond.readResponse()
        #expect(changes.json.objectValue?["toRevision"] == 1)
        #expect(changes.bodyText.contains(#""id":"a","isOn":true"#))
        // The retry of "x" on the other instance replays the first answer.
        #expect(try select(onSecond, screen: "toggles", row: "a", session: session, eventID: "x").json.objectValue?["toRevision"] == 1)

        let shared = try createSession(port: second.port)
        let (revisions, failures) = selectConcurrently(
            ports: [first.port, second.port], screen: "toggles", row: "c", session: shared, clients: 16, events: 10)
        #expect(failures == [])
        #expect(revisions.sorted() == Array(1...160))
    }

    @Test func aDatabaseThatGoesAwayGives503AndTheServiceRecovers() throws {
        let cluster = try PostgresCluster()
        let (screens, _) = try togglesScreens()
        defer { try? FileManager.default.removeItem(at: screens) }
        let server = try ServerProcess(arguments: ["--store", "postgres", "--database-url", cluster.url, "--screens", screens.path, "--log-level", "error"])
        let session = try createSession(port: server.port)
        #expect(try select(try RawHTTPConnection(port: server.port), screen: "toggles", row: "a", session: session, eventID: "1").status == 200)

        try cluster.stop()
        let started = Date()
        let down = try select(try RawHTTPConnection(port: server.port, timeout: 20), screen: "toggles", row: "b", session: session, eventID: "2")
        #expect(down.status == 503)
        #expect(down.header("Content-Type") == "application/problem+json")
        #expect(down.problemSlug == "store-unavailable")
        #expect(Date().timeIntervalSince(started) < 15)
        let health = try RawHTTPConnection(port: server.port, timeout: 20)
        try health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let unhealthy = try health.readResponse()
        #expect(unhealthy.status == 503)
        // The database's message names its host and port: the operator's log has it, and
        // no client (`/healthz` answers anyone) reads it.
        for answer in [down, unhealthy] {
            #expect(answer.bodyText.contains("the service's log has the database's message"), "\(answer.bodyText)")
            #expect(!answer.bodyText.contains(String(cluster.port)) && !answer.bodyText.contains("127.0.0.1"), "\(answer.bodyText)")
        }

        try cluster.start()
        var recovered = false
        let deadline = Date().addingTimeInterval(30)
        while !recovered && Date() < deadline {
            let response = try select(try RawHTTPConnection(port: server.port, timeout: 20), screen: "toggles", row: "b", session: session, eventID: "3")
            recovered = response.status == 200
            if !recovered { usleep(250_000) }
        }
        #expect(recovered)
        let check = try RawHTTPConnection(port: server.port)
        try check.send("GET /v1/screens/toggles HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n")
        #expect(try check.readResponse().json.objectValue?["revision"] == 2)
    }

    /// A SQLite file that can no longer be written (here, past the process's file-size limit,
    /// as a full disk would be): events get 503, and `/healthz` says so, though a read of the
    /// database still works (it read one page and answered 200). Once writes work again,
    /// `/healthz`'s own write finds it, and events are applied. The process lives on: it
    /// ignores SIGXFSZ, which would have ended it.
    @Test func aSQLiteFileThatCannotBeWrittenFailsHealthUntilItCan() throws {
        let (screens, _) = try togglesScreens()
        defer { try? FileManager.default.removeItem(at: screens) }
        let server = try ServerProcess(arguments: ["--screens", screens.path, "--log-level", "error"])
        let session = try createSession(port: server.port)
        #expect(try select(try RawHTTPConnection(port: server.port), screen: "toggles", row: "a", session: session, eventID: "1").status == 200)
        let health = { () throws -> RawHTTPResponse in
            let connection = try RawHTTPConnection(port: server.port, timeout: 20)
            try connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(try health().status == 200)

        try limitFileSize(of: server.process.processIdentifier, to: "1")
        let refused = try select(try RawHTTPConnection(port: server.port, timeout: 20), screen: "toggles", row: "b", session: session, eventID: "2")
        #expect(refused.status == 503 && refused.problemSlug == "store-unavailable", "\(refused.status) \(refused.bodyText)")
        let unhealthy = try health()
        #expect(unhealthy.status == 503 && unhealthy.problemSlug == "store-unavailable", "\(unhealthy.status) \(unhealthy.bodyText)\n\(server.log)")
        #expect(try health().status == 503, "a failed health write is no success")

        try limitFileSize(of: server.process.processIdentifier, to: "unlimited")
        #expect(try health().status == 200)
        let applied = try select(try RawHTTPConnection(port: server.port, timeout: 20), screen: "toggles", row: "b", session: session, eventID: "3")
        #expect(applied.status == 200, "\(applied.bodyText)")
        #expect(server.process.isRunning)
    }

    /// Sets a running process's soft file-size limit (`prlimit`, util-linux): the hard one is
    /// left, since raising it again needs a capability a container may not have.
    private func limitFileSize(of pid: Int32, to limit: String) throws {
        let prlimit = Process()
        prlimit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        prlimit.arguments = ["--pid", String(pid), "--fsize=\(limit):"]
        try prlimit.run()
        prlimit.waitUntilExit()
        #expect(prlimit.terminationStatus == 0)
    }

    /// A database restarted while the service sits idle costs no request: each pooled
    /// connection the server closed is replaced before its next job instead of failing it
    /// (before, every worker's first job after the restart answered 503).
    @Test func aRestartedDatabaseCostsNoFailedRequest() throws {
        let cluster = try PostgresCluster()
        let (screens, _) = try togglesScreens()
        defer { try? FileManager.default.removeItem(at: screens) }
        let poolSize = 4
        let server = try ServerProcess(arguments: [
            "--store", "postgres", "--database-url", cluster.url, "--database-pool-size", String(poolSize),
            "--screens", screens.path, "--log-level", "error",
        ])
        let session = try createSession(port: server.port)
        let port = server.port
        let fetchScreen: @Sendable () throws -> Int = {
            let connection = try RawHTTPConnection(port: port, timeout: 20)
            try connection.send("GET /v1/screens/toggles HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n")
            return try connection.readResponse().status
        }
        // Requests at once, so that every worker opens a connection of its own.
        let warmUpStatuses = Locked<[Int]>([])
        concurrently(poolSize * 4) { _ in
            let status = (try? fetchScreen()) ?? 0
            warmUpStatuses.withLock { $0.append(status) }
        }
        #expect(warmUpStatuses.withLock { $0 } == Array(repeating: 200, count: poolSize * 4))

        try cluster.stop()
        try cluster.start()
        var statuses: [Int] = []
        for _ in 0..<(poolSize * 3) {
            statuses.append(try fetchScreen())
        }
        #expect(statuses == Array(repeating: 200, count: poolSize * 3))
        let event = try select(try RawHTTPConnection(port: port, timeout: 20), screen: "toggles", row: "a", session: session, eventID: "after")
        #expect(event.status == 200)
        #expect(event.json.objectValue?["toRevision"] == 1)
    }
}

/// A joinable thread for tests.
final class WorkerThreadHandle: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: @Sendable () -> Void

    private init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    static func start(_ body: @escaping @Sendable () -> Void) -> WorkerThreadHandle {
        let handle = WorkerThreadHandle(body)
        pthread_create(
            &handle.thread, nil,
            { argument in
                guard let argument else { return nil }
                Unmanaged<WorkerThreadHandle>.fromOpaque(argument).takeRetainedValue().body()
                return nil
            }, Unmanaged.passRetained(handle).toOpaque())
        return handle
    }

    func join() { pthread_join(thread, nil) }
}
