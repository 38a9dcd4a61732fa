import Foundation
import Logging
import TabulaService
import TabulaTestSupport
import Testing

/// PostgreSQL that stops answering without closing its connections (the host still
/// acknowledges the traffic, so keepalives see nothing): requests get 503, not a hang.
@Suite struct PostgresOutageTests {
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
