import Foundation
import TabulaPlatform
import TabulaPostgres
import TabulaService
import TabulaTestSupport
import Testing

/// Every PostgreSQL transaction that writes a session locks its `sessions` row before its
/// log rows, so that two of them never wait for each other in a circle.
@Suite struct PostgresLockOrderTests {
    /// A commit used to delete the log rows past `--keep-revisions` first and update the
    /// session's row after, while a deletion of the session (the backend's `DELETE`, or
    /// retention) takes the row first and the log after: each held what the other waited
    /// for, until PostgreSQL's deadlock detection ended one of them with an error (a 503, or
    /// a failed deletion). Here a deletion holds the row while an event waits on it: the
    /// deletion goes through, and the event finds its session gone.
    @Test func anEventWaitingOnADeletionOfItsSessionEndsWithoutADeadlock() throws {
        let factory = try StoreFactory(.postgres)
        factory.settings.keepRevisions = 1
        let catalogue = try flipCatalogue()
        let store = try factory.open(catalogue)
        defer { store.close() }
        let api = try APITestServer(catalogue: catalogue, store: store)
        let created = try api.send("POST", "/v1/sessions")
        let token = try #require(created.json.objectValue?["session"]?.stringValue)
        let id = try #require(created.json.objectValue?["id"]?.stringValue)
        // Two revisions: the next event's commit drops the log row of the first.
        for _ in 0..<2 {
            #expect(try api.send("POST", "/v1/screens/flip/selection", session: token, json: #"{"row": "flip"}"#).status == 200)
        }
        let deletion = try PostgresConnection(url: try #require(factory.databaseURL))
        let digest = try #require(try deletion.execute("SELECT token_hash FROM sessions WHERE id = $1", [.text(id)]).rows.first?.first?.text)
        // So that this transaction, not the event's, is the one that finds a cycle, if any:
        // the event's would be read again and end the same, after PostgreSQL's second.
        try deletion.execute("SET deadlock_timeout = '10ms'")
        try deletion.execute("BEGIN")
        try deletion.execute("DELETE FROM sessions WHERE token_hash = $1", [.text(digest)])

        let answer = Locked<RawHTTPResponse?>(nil)
        let event = Thread {
            let response = try? api.send("POST", "/v1/screens/flip/selection", session: token, json: #"{"row": "flip"}"#)
            answer.withLock { $0 = response }
        }
        event.start()
        // Long enough for the event's commit to reach the session's row and wait on it.
        usleep(500_000)
        var refused: String?
        do {
            try deletion.execute("DELETE FROM events WHERE token_hash = $1", [.text(digest)])
            try deletion.execute("COMMIT")
        } catch {
            refused = "\(error)"
            _ = try? deletion.execute("ROLLBACK")
        }
        #expect(refused == nil, "the deletion failed: \(refused ?? "")")
        let deadline = Date().addingTimeInterval(10)
        while answer.withLock({ $0 }) == nil, Date() < deadline { usleep(10_000) }
        let response = answer.withLock { $0 }
        #expect(response?.status == 401 && response?.problemSlug == "unknown-session", "\(response?.status ?? 0) \(response?.bodyText ?? "")")
    }
}
