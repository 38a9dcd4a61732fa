import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport
import Testing

@testable import TabulaService

/// The feed holds exactly the committed changes, each once, in revision order per session:
/// after processes are killed in the middle of a load, and with two instances sharing
/// PostgreSQL.
@Suite(.serialized) struct FeedDurabilityTests {
    static let environment = ["TABULA_BACKEND_KEY": BackendAPITests.key]

    /// Creates a session with a subject; its token and id.
    static func createSession(port: UInt16, subject: String) throws -> (token: String, id: String) {
        let response = try BackendWriteTests.request(
            port, "POST", "/v1/sessions", headers: [BackendAPITests.authorization, "Content-Type: application/json"],
            body: #"{"subject": "\#(subject)"}"#)
        guard let body = response.json.objectValue, let token = body["session"]?.stringValue, let id = body["id"]?.stringValue else {
            throw ServerProcessError("no session: \(response.status) \(response.bodyText)")
        }
        return (token, id)
    }

    /// Every session's entries are `created` at 0, then one per revision up to its current
    /// one, each once (patches counting as events); every acknowledged event is among them
    /// at its revision. Returns the feed it read.
    @discardableResult
    static func checkFeed(sessions: [(token: String, id: String)], acknowledged: [Acknowledgement], port: UInt16) throws -> [JSONObject] {
        var revisionCount = 0
        for session in sessions {
            let record = try BackendWriteTests.request(port, "GET", "/v1/sessions/\(session.id)", headers: [BackendAPITests.authorization])
            revisionCount += 1 + (try #require(record.json.objectValue?["revision"]?.intValue))
        }
        let read = try readWholeFeed(port: port, atLeast: revisionCount).entries
        let entries = read.map { entry -> JSONObject in
            var entry = entry
            if entry["cause"]?.stringValue == "patch" { entry["cause"] = .string("event") }
            return entry
        }
        let cursors = entries.compactMap { $0["cursor"]?.stringValue }
        #expect(cursors.count == entries.count && cursors == cursors.sorted() && Set(cursors).count == cursors.count)
        for session in sessions {
            let own = entries.filter { $0["session"]?.stringValue == session.id }
            let revisions = own.compactMap { $0["revision"]?.intValue }
            let current = try #require(
                try BackendWriteTests.request(port, "GET", "/v1/sessions/\(session.id)", headers: [BackendAPITests.authorization])
                    .json.objectValue?["revision"]?.intValue)
            #expect(revisions == Array(0...current), "session \(session.id): revisions \(revisions.prefix(5))… for current \(current)")
            #expect(own.first?["cause"]?.stringValue == "created" && own.dropFirst().allSatisfy { $0["cause"]?.stringValue == "event" })
            let byEventID = Dictionary(
                own.compactMap { entry in entry["event"]?.objectValue?["eventId"]?.stringValue.map { ($0, entry["revision"]?.intValue ?? -1) } },
                uniquingKeysWith: { first, _ in first })
            for ack in acknowledged where ack.session == session.token {
                #expect(byEventID[ack.eventID] == ack.revision, "acknowledged event \(ack.eventID) at \(ack.revision) is not in the feed")
            }
        }
        return read
    }

    @Test(arguments: [StoreKind.sqlite, .postgres])
    func afterKillsMidLoadTheFeedHoldsEveryCommittedChangeOnce(_ kind: StoreKind) throws {
        let (screens, _) = try togglesScreens()
        let data = try makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: screens)
            try? FileManager.default.removeItem(at: data)
        }
        let store: [String] =
            kind == .sqlite
            ? ["--store", "sqlite", "--data-dir", data.path]
            : ["--store", "postgres", "--database-url", try PostgresCluster.shared.get().makeDatabase()]
        let arguments = store + ["--screens", screens.path, "--keep-revisions", "1000000", "--log-level", "notice"]
        var sessions: [(token: String, id: String)] = []
        var acknowledged: [Acknowledgement] = []
        for iteration in 0..<3 {
            let server = try ServerProcess(arguments: arguments, environment: Self.environment)
            if sessions.isEmpty { sessions = try (0..<3).map { try Self.createSession(port: server.port, subject: "user-\($0)") } }
            // PostgreSQL commits are slower: a longer load before the kill, for as many events.
            acknowledged += selectUntilKilled(
                server, sessions: sessions.map(\.token), iteration: iteration,
                killAfter: kind == .postgres ? 500_000...1_200_000 : 200_000...500_000)
            let restarted = try ServerProcess(arguments: arguments, environment: Self.environment)
            try Self.checkFeed(sessions: sessions, acknowledged: acknowledged, port: restarted.port)
        }
        #expect(acknowledged.count > 30, "the load was too small to mean anything: \(acknowledged.count)")
    }

    /// Two instances write the same sessions at once (client events on both, backend patches
    /// on both): the feed read from either is the same one, and holds every change once.
    @Test func twoInstancesOnPostgreSQLShareOneFeed() throws {
        let (screens, _) = try togglesScreens()
        defer { try? FileManager.default.removeItem(at: screens) }
        let arguments = [
            "--store", "postgres", "--database-url", try PostgresCluster.shared.get().makeDatabase(), "--screens", screens.path,
            "--log-level", "notice",
        ]
        let instances = try (0..<2).map { _ in try ServerProcess(arguments: arguments, environment: Self.environment) }
        let ports = instances.map(\.port)
        let sessions = try (0..<4).map { try Self.createSession(port: ports[$0 % 2], subject: "user-\($0)") }
        let acks = Locked<[Acknowledgement]>([])
        let failures = Locked<[String]>([])
        concurrently(8) { client in
            let port = ports[client % 2]
            let session = sessions[client % sessions.count]
            guard let connection = try? RawHTTPConnection(port: port, timeout: 10) else { return }
            for index in 0..<40 {
                do {
                    if client >= 6 {
                        // A backend: patches on its instance, under If-Match.
                        let read = try BackendWriteTests.request(port, "GET", "/v1/sessions/\(session.id)", headers: [BackendAPITests.authorization])
                        let revision = read.json.objectValue?["revision"]?.intValue ?? -1
                        let patch = try BackendWriteTests.request(
                            port, "PATCH", "/v1/sessions/\(session.id)/state",
                            headers: [BackendAPITests.authorization, "If-Match: \"\(revision)\"", "Content-Type: \(BackendWriteTests.merge)"],
                            body: #"{"c": \#(index % 2 == 0)}"#)
                        if ![200, 412].contains(patch.status) { failures.withLock { $0.append("patch \(patch.status) \(patch.bodyText)") } }
                    } else {
                        let eventID = "c\(client)-\(index)"
                        let response = try select(connection, screen: "toggles", row: ["a", "b"][index % 2], session: session.token, eventID: eventID)
                        guard response.status == 200, let revision = response.json.objectValue?["toRevision"]?.intValue else {
                            failures.withLock { $0.append("event \(response.status) \(response.bodyText)") }
                            continue
                        }
                        acks.withLock { $0.append(Acknowledgement(session: session.token, eventID: eventID, revision: revision)) }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        let first = try Self.checkFeed(sessions: sessions, acknowledged: acks.withLock { $0 }, port: ports[0])
        let second = try readWholeFeed(port: ports[1], limit: 7, atLeast: first.count)
        #expect(first == second.entries)
        #expect(first.contains { $0["cause"]?.stringValue == "patch" })
    }
}
