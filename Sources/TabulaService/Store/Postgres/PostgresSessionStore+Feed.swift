import Logging
import TabulaCore
import TabulaPlatform
import TabulaPostgres

/// The feed in PostgreSQL: entries written in the transactions of their changes, read in
/// one order across instances, and removed by retention.
extension PostgresSessionStore {
    /// Reads the feed. Transactions get their ids when they first write, and the feed is
    /// ordered by them; an entry is read only once every transaction with a smaller id has
    /// ended (its id is below the snapshot's `xmin`), so that no entry can commit later
    /// before one already read: the feed is one order across instances, and an entry
    /// appears as soon as the transactions begun before its own have ended. For a session,
    /// this is revision order: a change's transaction writes after the one before it
    /// committed. The pruned place and the entries are read in one snapshot.
    ///
    /// Entries committed but not yet readable are waited for, briefly: the transactions
    /// begun before theirs are usually about to end, and a backend that reads the feed
    /// right after its own write expects to find it.
    public func readFeed(after: FeedCursor?, limit: Int, completion: @escaping @Sendable (Result<FeedPage, StoreError>) -> Void) {
        pool.submit(
            { connection throws(PostgresError) in
                try Self.waitUntilCommittedEntriesAreReadable(connection)
                try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                do throws(PostgresError) {
                    let pruned = Self.cursor(try connection.execute("SELECT xid::text, seq FROM feed_pruned").rows.first) ?? .start
                    let newest = Self.cursor(try connection.execute(Self.newestFeedEntry).rows.first) ?? .start
                    let page = try FeedPage.read(after: after, pruned: pruned, newest: newest) { (from) throws(PostgresError) in
                        // The id's text is named apart from `xid`: ORDER BY would sort by the
                        // text otherwise, an output column's name winning over the table's.
                        try connection.execute(
                            """
                            SELECT xid::text AS xid_text, seq, session_id, subject, revision, cause, event, changed_keys, time_ms FROM feed
                            WHERE (xid, seq) > ($1::xid8, $2) AND xid < pg_snapshot_xmin(pg_current_snapshot())
                            ORDER BY xid, seq LIMIT $3
                            """,
                            [.text(String(from.high)), .integer(Int64(clamping: from.low)), .integer(Int64(limit))]
                        ).rows.map(Self.feedEntry)
                    }
                    try connection.execute("COMMIT")
                    completion(.success(page))
                } catch {
                    _ = try? connection.execute("ROLLBACK")
                    throw error
                }
            }, failed: { completion(.failure($0)) })
    }

    /// Writes a feed entry, in the caller's transaction.
    static func appendToFeed(
        sessionID: String, subject: String?, revision: Int64, _ record: FeedRecord, time: Milliseconds, _ connection: PostgresConnection
    ) throws(PostgresError) {
        try connection.execute(
            "INSERT INTO feed(session_id, subject, revision, cause, event, changed_keys, time_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            [
                .text(sessionID), subject.map(PostgresValue.text) ?? .null, .integer(revision), .text(record.cause.rawValue),
                record.event.map(PostgresValue.bytes) ?? .null, .bytes(record.changedKeys), .integer(time),
            ])
    }

    /// The feed is ordered by transaction id, which only grows in one database's history. A
    /// database restored from a dump, or a standby promoted after losing transactions, hands
    /// out ids below entries already written: new entries would sort before them, and
    /// readers past those would miss them. The feed is emptied then; readers' cursors are
    /// past everything it holds, which reads as expired (410), so that backends read their
    /// sessions again. The newest place is the newest entry's, or that of the newest entry
    /// retention removed: a feed retention emptied is ahead as much as the entries were.
    static func resetFeedIfTransactionIDsWentBack(_ connection: PostgresConnection, _ logger: Logger) throws(PostgresError) {
        let newestAhead = """
            SELECT GREATEST((SELECT xid FROM feed ORDER BY xid DESC, seq DESC LIMIT 1), (SELECT xid FROM feed_pruned))
                >= pg_current_xact_id()
            """
        guard try connection.execute(newestAhead).rows.first?.first?.integer == 1 else { return }
        try connection.execute("BEGIN")
        do throws(PostgresError) {
            try connection.execute("DELETE FROM feed")
            try connection.execute("UPDATE feed_pruned SET xid = '0', seq = 0")
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        logger.warning(
            "the database's transaction ids are behind its feed (it was restored, or a standby took over): the feed starts again, and backends reading it get 410 feed-expired and read their sessions again"
        )
    }

    /// How long a read of the feed waits for committed entries to become readable.
    static let feedReadWait = Duration.milliseconds(200)

    /// Returns once every entry committed when it was called is readable (no transaction
    /// with a smaller id is still open), or after ``feedReadWait``. The newest entry is read
    /// once: entries committed meanwhile are not waited for, so that a busy feed does not
    /// keep a connection of the pool waiting.
    static func waitUntilCommittedEntriesAreReadable(_ connection: PostgresConnection) throws(PostgresError) {
        guard let newest = try connection.execute(newestFeedEntry).rows.first?.first else { return }
        let deadline = ContinuousClock.now + feedReadWait
        while ContinuousClock.now < deadline {
            let readable = try connection.execute("SELECT $1::xid8 < pg_snapshot_xmin(pg_current_snapshot())", [newest]).rows.first?.first
            if readable?.integer == 1 { return }
            usleep(2_000)
        }
    }

    /// Removes the oldest feed entries up to the first younger than `cutoff` (among at most
    /// `limit`), and records the place of the newest removed. Only entries every reader
    /// may have read are looked at (see ``readFeed(after:limit:completion:)``).
    static func removeFeedEntries(olderThan cutoff: Milliseconds, limit: Int, _ connection: PostgresConnection) throws(PostgresError) {
        let oldest = try connection.execute(
            "SELECT xid::text AS xid_text, seq, time_ms FROM feed WHERE xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY xid, seq LIMIT $1",
            [.integer(Int64(limit))]
        ).rows
        var newestRemoved: (xid: String, seq: Int64)?
        for row in oldest {
            guard let xid = row[0].text, let seq = row[1].integer, let time = row[2].integer, time < cutoff else { break }
            newestRemoved = (xid, seq)
        }
        guard let newestRemoved else { return }
        let place: [PostgresValue] = [.text(newestRemoved.xid), .integer(newestRemoved.seq)]
        try connection.execute("BEGIN")
        do throws(PostgresError) {
            try connection.execute("DELETE FROM feed WHERE (xid, seq) <= ($1::xid8, $2)", place)
            try connection.execute("UPDATE feed_pruned SET xid = $1::xid8, seq = $2 WHERE (xid, seq) < ($1::xid8, $2)", place)
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The place of the feed's newest entry: its transaction id's text and its sequence. The
    /// text is named apart from `xid`, which ORDER BY would otherwise take for it.
    static let newestFeedEntry = "SELECT xid::text AS xid_text, seq FROM feed ORDER BY xid DESC, seq DESC LIMIT 1"

    /// A cursor from a row that starts with a transaction id's text and a sequence.
    static func cursor(_ row: [PostgresValue]?) -> FeedCursor? {
        guard let row, row.count >= 2, let xid = row[0].text.flatMap({ UInt64($0) }), let seq = row[1].integer else { return nil }
        return FeedCursor(high: xid, low: UInt64(max(0, seq)))
    }

    /// A feed row; one whose columns are not what the feed writes is damaged, and is an
    /// error rather than left out.
    static func feedEntry(_ row: [PostgresValue]) throws(PostgresError) -> FeedEntry {
        guard let cursor = cursor(row), let sessionID = row[2].text,
            let revision = row[4].integer, let cause = row[5].text.flatMap(FeedRecord.Cause.init(rawValue:)), let time = row[8].integer,
            row[3] == .null || row[3].text != nil, row[6] == .null || row[6].bytes != nil, let changedKeys = row[7].bytes,
            FeedRecord.readsBack(event: row[6].bytes, changedKeys: changedKeys)
        else { throw .corrupt("the feed entry at \(row.first.map { "\($0)" } ?? "?") does not decode") }
        return FeedEntry(
            cursor: cursor, sessionID: sessionID, subject: row[3].text, revision: Int(revision),
            record: FeedRecord(cause: cause, event: row[6].bytes, changedKeys: changedKeys), time: time)
    }
}
