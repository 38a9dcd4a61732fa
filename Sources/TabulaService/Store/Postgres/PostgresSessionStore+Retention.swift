import Logging
import TabulaCore
import TabulaPlatform
import TabulaPostgres

/// What PostgreSQL keeps of sessions, and for how long: idle sessions removed, and each
/// session's history and answers kept within their bounds.
extension PostgresSessionStore {
    public func removeExpired(completion: @escaping @Sendable (Result<Int, StoreError>) -> Void) {
        let time = now()
        let answerCutoff = time - Milliseconds(settings.idempotencyTTLSeconds) * 1000
        let sessionCutoff = time - Milliseconds(settings.sessionTTLSeconds) * 1000
        let feedCutoff = time - Milliseconds(settings.feedRetentionSeconds) * 1000
        pool.submit(
            { [logger, count, announcer] connection throws(PostgresError) in
                try ExpiredAnswers.remove { (limit: Int) throws(PostgresError) -> Int in
                    try connection.execute(
                        "DELETE FROM answers WHERE ctid = ANY(ARRAY(SELECT ctid FROM answers WHERE time_ms < $1 LIMIT $2))",
                        [.integer(answerCutoff), .integer(Int64(limit))]
                    ).affectedRows
                }
                // The outer condition repeats the inner one: a session that an event commits
                // on while the statement waits for its row is checked again, and kept.
                try connection.execute("BEGIN")
                let removed: [String]
                do throws(PostgresError) {
                    removed = try Self.removeSessions(
                        """
                        DELETE FROM sessions
                        WHERE token_hash IN (SELECT token_hash FROM sessions WHERE last_used_ms < $1 LIMIT 1000) AND last_used_ms < $1
                        RETURNING token_hash, id, subject, revision
                        """, [.integer(sessionCutoff)], time: time, connection)
                    try connection.execute("COMMIT")
                } catch {
                    _ = try? connection.execute("ROLLBACK")
                    throw error
                }
                announcer.announce(removed.map { PostgresChangeListener.payload(id: $0, revision: nil) })
                let idle = removed.count
                try Self.removeFeedEntries(olderThan: feedCutoff, limit: 20_000, connection)
                let sessions = try connection.execute("SELECT COUNT(*) FROM sessions").rows.first?.first?.integer ?? 0
                count.withLock { $0 = Int(sessions) }
                if idle > 0 { logger.info("removed \(idle) idle sessions") }
                completion(.success(idle))
            },
            failed: { [logger] error in
                logger.warning("retention failed: \(error)")
                completion(.failure(error))
            })
    }

    /// Runs `delete`, a `DELETE FROM sessions … RETURNING token_hash, id, subject, revision`,
    /// and removes each deleted session's log and answers and writes its `deleted` feed
    /// entry, in the caller's transaction; returns the public ids of the sessions it deleted.
    static func removeSessions(
        _ delete: String, _ parameters: [PostgresValue], time: Milliseconds, _ connection: PostgresConnection
    ) throws(PostgresError) -> [String] {
        var ids: [String] = []
        for row in try connection.execute(delete, parameters).rows {
            guard let digest = row[0].text, let id = row[1].text else { continue }
            try connection.execute("DELETE FROM events WHERE token_hash = $1", [.text(digest)])
            try connection.execute("DELETE FROM answers WHERE token_hash = $1", [.text(digest)])
            try appendToFeed(sessionID: id, subject: row[2].text, revision: row[3].integer ?? 0, .deleted, time: time, connection)
            ids.append(id)
        }
        return ids
    }

    /// Keeps the session's history within ``StoreSettings/maxHistoryBytes`` and its stored
    /// answers within ``StoreSettings/maxAnswersPerSession``, in the caller's transaction,
    /// dropping the oldest. The session's row counts both as they grow (answers replaced or
    /// removed by retention are still counted: an upper bound), so the exact sums are read
    /// only when a count passes its limit.
    func keepWithinBounds(_ digest: String, historyBytes: Int64, answers: Int64, _ connection: PostgresConnection) throws(PostgresError) {
        if historyBytes > settings.maxHistoryBytes {
            let sizes = try connection.execute(
                "SELECT revision, octet_length(state) + octet_length(payload) FROM events WHERE token_hash = $1 ORDER BY revision DESC",
                [.text(digest)]
            ).rows.compactMap { row in row[0].integer.map { (revision: $0, bytes: row[1].integer ?? 0) } }
            let cut = settings.historyCut(sizes)
            if let keepFrom = cut.keepFrom {
                let dropped = try connection.execute(
                    "DELETE FROM events WHERE token_hash = $1 AND revision < $2", [.text(digest), .integer(keepFrom)]
                ).affectedRows
                limitCounts.add(.historyBytes, dropped)
            }
            try connection.execute("UPDATE sessions SET history_bytes = $1 WHERE token_hash = $2", [.integer(cut.keptBytes), .text(digest)])
        }
        if answers > settings.maxAnswersPerSession {
            let limit = Int64(settings.maxAnswersPerSession)
            let dropped = try connection.execute(
                """
                DELETE FROM answers WHERE token_hash = $1 AND event_id IN (
                    SELECT event_id FROM answers WHERE token_hash = $1 ORDER BY seq DESC OFFSET $2)
                """, [.text(digest), .integer(limit)]
            ).affectedRows
            limitCounts.add(.eventAnswers, dropped)
            try connection.execute(
                "UPDATE sessions SET answer_count = (SELECT COUNT(*) FROM answers WHERE token_hash = $1) WHERE token_hash = $1", [.text(digest)])
        }
    }
}
