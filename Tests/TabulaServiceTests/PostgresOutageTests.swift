import Foundation
import Logging
import TabulaPostgres
import TabulaService
import TabulaTestSupport
import Testing

/// PostgreSQL that stops answering without closing its connections (the host still
/// acknowledges the traffic, so keepalives see nothing): requests get 503, not a hang.
@Suite struct PostgresOutageTests {
    /// Instances starting together migrate one at a time: one that waits for another's
    /// migration longer than a statement may take still starts once it ends.
    @Test func aStartWaitsForAnotherInstancesMigrationHoweverLong() throws {
        let url = try PostgresCluster.shared.get().makeDatabase()
        let holder = try PostgresConnection(url: url)
        try holder.execute("SELECT pg_advisory_lock($1)", [.integer(0x7461_6275_6C61)])
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 8) {
            _ = try? holder.execute("SELECT pg_advisory_unlock($1)", [.integer(0x7461_6275_6C61)])
            released.signal()
        }
        var logger = Logger(label: "outage-test")
        logger.logLevel = .critical
        let started = ContinuousClock.now
        let store = try PostgresSessionStore(url: url, poolSize: 1, settings: StoreSettings(), logger: logger)
        defer { store.close() }
        #expect(ContinuousClock.now - started > .seconds(7), "it waited for the other migration")
        released.wait()
    }

    /// A read does not wait for a transaction of another instance that holds the session's
    /// row to write the session's last use: it answers at once, and the use is written later.
    @Test func aReadDoesNotWaitForTheSessionsRowHeldElsewhere() throws {
        let factory = try StoreFactory(.postgres)
        let store = try factory.open(try APITestServer.fixtures())
        defer { store.close() }
        let api = try APITestServer(store: store)
        let session = try api.newSession()
        let connection = try PostgresConnection(url: try #require(factory.databaseURL))
        try connection.execute("UPDATE sessions SET last_used_ms = 0")
        try connection.execute("BEGIN")
        try connection.execute("SELECT 1 FROM sessions FOR UPDATE")
        let started = ContinuousClock.now
        let screen = try api.send("GET", "/v1/screens/settings", session: session)
        let took = ContinuousClock.now - started
        try connection.execute("ROLLBACK")
        #expect(screen.status == 200, "\(screen.status) \(screen.bodyText)")
        // Below the statement timeout (5 s), which a read waiting on the row would reach.
        #expect(took < .milliseconds(4500), "the read waited \(took)")
    }

    @Test func aDatabaseThatStopsAnsweringGets503WithinItsDeadline() throws {
        let cluster = try PostgresCluster.shared.get()
        let proxy = try FreezableProxy(to: cluster.port)
        defer { proxy.close() }
        let url = try cluster.makeDatabase().replacingOccurrences(of: ":\(cluster.port)/", with: ":\(proxy.port)/")
        let catalogue = try flipCatalogue()
        var logger = Logger(label: "outage-test")
        logger.logLevel = .critical
        let store = try PostgresSessionStore(url: url, poolSize: 1, settings: StoreSettings(), logger: logger)
        let api = try APITestServer(catalogue: catalogue, store: store)
        defer { store.close() }
        // One worker, whose connection is open once the session exists: the event's
        // statements go out on it and get no answer.
        let session = try api.newSession()

        proxy.freeze(true)
        let started = ContinuousClock.now
        let connection = try RawHTTPConnection(port: api.port, timeout: 20)
        try connection.send(
            "POST /v1/screens/flip/selection HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{\"row\":\"flip\"}"
        )
        let answer = try connection.readResponse()
        let waited = ContinuousClock.now - started
        #expect(answer.status == 503)
        #expect(answer.header("Content-Type") == "application/problem+json")
        // The statement timeout (5 s) plus the client's two seconds: the deadline fired,
        // not something quicker.
        #expect(waited >= .milliseconds(6_900) && waited < .seconds(10), "\(waited)")
        #expect(answer.bodyText.contains("did not answer within 7.0 seconds"))

        proxy.freeze(false)
        // The pool connects again: the same event is applied once the database answers.
        let applied = try api.send("POST", "/v1/screens/flip/selection", session: session, json: #"{"row":"flip"}"#)
        #expect(applied.status == 200)
        #expect(applied.json.objectValue?["toRevision"] == 1)
    }
}
