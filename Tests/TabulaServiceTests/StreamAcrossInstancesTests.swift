import Foundation
import TabulaCore
import TabulaPlatform
import TabulaPostgres
import TabulaSamples
import TabulaTestSupport
import Testing

@testable import TabulaService

/// Two instances on one PostgreSQL database: a commit on either reaches the streams of
/// both, including while the connections that listen for other instances' changes are
/// killed again and again (`pg_terminate_backend`): what they missed is read again when
/// they are back.
@Suite struct StreamAcrossInstancesTests {
    static let backendKey = "across-instances-backend-key"

    @Test func commitsOnEitherInstanceReachTheStreamsOfBoth() throws {
        let factory = try StoreFactory(.postgres)
        let catalogue = try APITestServer.fixtures()
        let instances = try (0..<2).map { _ in
            try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
                configuration.backendKey = APIKey(Self.backendKey)
                configuration.streams.heartbeatSeconds = 1
            }
        }
        let created = try instances[0].send("POST", "/v1/sessions").json.objectValue
        let token = try #require(created?["session"]?.stringValue)
        let id = try #require(created?["id"]?.stringValue)
        let streams = try (0..<4).map { index in
            try StreamClientCopy(port: instances[index % 2].port, screen: "settings", session: token)
        }
        func current() throws -> Screen {
            try Screen(jsonBytes: try instances[0].send("GET", "/v1/screens/settings", session: token).body)
        }
        for stream in streams { try stream.catchUp(to: try current(), "the first event") }

        let killer = ListenerKiller(url: try #require(factory.databaseURL))
        var random = SplitMix64(seed: 11)
        for round in 0..<10 {
            // From the fourth round on, the listening connections are killed while the
            // commits of the round go on.
            if round >= 3 { killer.start() }
            for step in 0..<4 {
                let instance = instances[Int(random.next() % 2)]
                if step == 3 {
                    let revision = try #require(
                        instance.send("GET", "/v1/sessions/\(id)", headers: ["Authorization: Bearer \(Self.backendKey)"]).json
                            .objectValue?["revision"]?.intValue)
                    _ = try instance.send(
                        "PATCH", "/v1/sessions/\(id)/state",
                        headers: ["Authorization: Bearer \(Self.backendKey)", "If-Match: \"\(revision)\""],
                        json: #"{"bluetooth": \#(random.next() % 2 == 0)}"#, contentType: "application/merge-patch+json")
                    continue
                }
                guard let (event, _) = RandomEvents.pick(on: try current(), &random) else { continue }
                var body = JSONObject()
                body["row"] = .string(event.rowID)
                if case .setSwitch(_, let isOn) = event { body["isOn"] = .bool(isOn) }
                let answer = try instance.send(
                    "POST", "/v1/screens/settings/\(event.kindName)", session: token, json: JSONValue.object(body).canonicalText)
                #expect(answer.status == 200 || answer.status == 422, "\(answer.status) \(answer.bodyText)")
            }
            killer.stop()
            let screen = try current()
            for (index, stream) in streams.enumerated() {
                try stream.catchUp(to: screen, within: 15, "round \(round), stream \(index) on instance \(index % 2)")
            }
        }
        #expect(killer.kills > 0, "no listening connection was killed")
        // A deletion on one instance ends the streams on both.
        _ = try instances[1].send("DELETE", "/v1/sessions/\(id)", headers: ["Authorization: Bearer \(Self.backendKey)"])
        for stream in streams {
            while try stream.readOne() {}
            #expect(stream.gone)
        }
    }
}

/// Kills the connections that listen for changes, every few milliseconds, from its own
/// thread, until stopped.
final class ListenerKiller: @unchecked Sendable {
    private let url: String
    private let running = Locked(false)
    private let killed = Locked(0)
    private var thread: WorkerThread?

    init(url: String) {
        self.url = url
    }

    var kills: Int { killed.withLock { $0 } }

    func start() {
        running.withLock { $0 = true }
        thread = WorkerThread.start { [self] in
            guard let connection = try? PostgresConnection(url: url) else { return }
            while running.withLock({ $0 }) {
                let result = try? connection.execute(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND query = 'LISTEN \(PostgresChangeListener.channel)' AND pid <> pg_backend_pid()
                    """)
                killed.withLock { $0 += result?.rows.count ?? 0 }
                usleep(30_000)
            }
        }
    }

    func stop() {
        running.withLock { $0 = false }
        thread?.join()
        thread = nil
    }
}
