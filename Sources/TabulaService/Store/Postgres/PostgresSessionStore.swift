public import Logging
import TabulaCore
import TabulaPlatform
import TabulaPostgres

/// Sessions in PostgreSQL, for several `tabula serve` processes behind a load balancer.
///
/// Nothing is cached across requests (another instance may have written), so every read
/// and commit asks the database. A commit is one transaction whose update is a
/// compare-and-swap on the revision (`… WHERE revision = $expected`); a commit that finds
/// the session moved on, or an answer for its event id stored by another instance, rolls
/// back and reports a conflict, and the service reads and decides again. A process runs at
/// most `poolSize` transactions at once, so writers of one session in one process contend
/// only that many at a time.
public final class PostgresSessionStore: SessionStore {
    private let pool: PostgresPool
    private let settings: StoreSettings
    private let logger: Logger
    private let retention: RetentionTimer
    private let count = Locked(0)
    private let touches: TouchTracker
    private let now: @Sendable () -> Milliseconds
    private let url: String
    private let listener = Locked<PostgresChangeListener?>(nil)
    private let announcer: PostgresChangeAnnouncer
    public let limitCounts = LimitCounts()

    /// Connections (and worker threads) a process opens when not told otherwise: a few
    /// transactions in flight keep the database busy while others travel, and each
    /// connection is a PostgreSQL backend process on the server.
    public static let defaultPoolSize = 4

    /// Connects, migrates the schema, and starts `poolSize` workers.
    public init(
        url: String, poolSize: Int = defaultPoolSize, settings: StoreSettings, logger: Logger,
        retentionIntervalSeconds: Double = 60, now: @escaping @Sendable () -> Milliseconds = unixMilliseconds
    ) throws(StoreError) {
        do {
            let connection = try PostgresConnection(url: url)
            try PostgresSchema.migrate(connection)
            try Self.resetFeedIfTransactionIDsWentBack(connection, logger)
            let sessions = try connection.execute("SELECT COUNT(*) FROM sessions").rows.first?.first?.integer ?? 0
            count.withLock { $0 = Int(sessions) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("cannot reach PostgreSQL at \(Self.redacted(url)): \(error)")
        }
        self.settings = settings
        self.url = url
        announcer = PostgresChangeAnnouncer(url: url, logger: logger)
        touches = TouchTracker(sessionTTLSeconds: settings.sessionTTLSeconds)
        self.logger = logger
        self.now = now
        pool = PostgresPool(url: url, size: poolSize, logger: logger)
        retention = RetentionTimer(intervalSeconds: retentionIntervalSeconds)
        retention.start { [weak self] in self?.removeExpired { _ in } }
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard let at = url.firstIndex(of: "@"), let scheme = url.firstRange(of: "://"), scheme.upperBound < at else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }

    public var name: String { "postgres" }

    public func createSession(_ new: NewSession, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        let time = now()
        let digest: String
        do throws(StoreError) {
            digest = try TokenDigest.of(new.token)
        } catch {
            return completion(.failure(error))
        }
        pool.submit(
            { [count, announcer] connection throws(PostgresError) in
                let bytes = new.state.valuesBytes
                try connection.execute("BEGIN")
                do throws(PostgresError) {
                    try connection.execute(
                        """
                        INSERT INTO sessions(token_hash, id, subject, revision, state, created_ms, last_used_ms, history_bytes)
                        VALUES ($1, $2, $3, 0, $4, $5, $5, $6)
                        """,
                        [
                            .text(digest), .text(new.id), new.subject.map(PostgresValue.text) ?? .null, .bytes(bytes), .integer(time),
                            .integer(Int64(bytes.count + 2)),
                        ])
                    try connection.execute(
                        "INSERT INTO events(token_hash, revision, event_id, kind, payload, state, time_ms) VALUES ($1, 0, NULL, 'create', $2, $3, $4)",
                        [.text(digest), .bytes(Array("{}".utf8)), .bytes(bytes), .integer(time)])
                    try Self.appendToFeed(
                        sessionID: new.id, subject: new.subject, revision: Int64(new.state.revision), .created(new.state), time: time, connection)
                    try connection.execute("COMMIT")
                } catch {
                    _ = try? connection.execute("ROLLBACK")
                    throw error
                }
                count.withLock { $0 += 1 }
                completion(.success(()))
                // For the feed's streams on every instance (no screen streams yet).
                announcer.announce([PostgresChangeListener.payload(id: new.id, revision: 0)])
            }, failed: { completion(.failure($0)) })
    }

    public func sessionRecord(id: String, completion: @escaping @Sendable (Result<SessionRecord?, StoreError>) -> Void) {
        pool.submit(
            { connection throws(PostgresError) in
                let row = try connection.execute(
                    "SELECT subject, revision, state, created_ms, last_used_ms FROM sessions WHERE id = $1", [.text(id)]
                ).rows.first
                guard let row else { return completion(.success(nil)) }
                guard let revision = row[1].integer else { throw .corrupt("session \(id): its row has no revision") }
                completion(
                    .success(
                        SessionRecord(
                            id: id, subject: row[0].text, state: try Self.restore(row[2], revision: Int(revision), session: id),
                            createdAt: row[3].integer ?? 0, lastUsedAt: row[4].integer ?? 0)))
            }, failed: { completion(.failure($0)) })
    }

    public func deleteSession(id: String, completion: @escaping @Sendable (Result<Bool, StoreError>) -> Void) {
        let time = now()
        pool.submit(
            { [count, announcer] connection throws(PostgresError) in
                try connection.execute("BEGIN")
                do throws(PostgresError) {
                    let deleted = try Self.removeSessions(
                        "DELETE FROM sessions WHERE id = $1 RETURNING token_hash, id, subject, revision", [.text(id)], time: time, connection)
                    try connection.execute("COMMIT")
                    if !deleted.isEmpty { count.withLock { $0 -= 1 } }
                    completion(.success(!deleted.isEmpty))
                    announcer.announce(deleted.map { PostgresChangeListener.payload(id: $0, revision: nil) })
                } catch {
                    _ = try? connection.execute("ROLLBACK")
                    throw error
                }
            }, failed: { completion(.failure($0)) })
    }

    public func read(
        session name: SessionName, _ request: SessionRead,
        completion: @escaping @Sendable (Result<SessionSnapshot?, StoreError>) -> Void
    ) {
        let cutoff = answerCutoff()
        let knownDigest: String?
        do throws(StoreError) {
            knownDigest = try Self.digest(of: name)
        } catch {
            return completion(.failure(error))
        }
        pool.submit(
            { [self] connection throws(PostgresError) in
                let time = now()
                var digest = knownDigest
                if digest == nil { digest = try self.digest(of: name, connection) }
                guard let digest, let current = try currentState(digest, connection) else { return completion(.success(nil)) }
                var past = RevisionLookup.found(current)
                if let revision = request.revision { past = try state(digest, at: revision, current: current, connection) }
                var stored: StoredAnswer?
                if let eventID = request.eventID { stored = try answer(digest, eventID: eventID, notBefore: cutoff, connection) }
                var id: String?
                if request.id {
                    if case .id(let known) = name {
                        id = known
                    } else {
                        id = try connection.execute("SELECT id FROM sessions WHERE token_hash = $1", [.text(digest)]).rows.first?[0].text
                    }
                }
                if case .token = name { try touchIfStale(digest, connection) }
                completion(.success(SessionSnapshot(current: current, past: past, answer: stored, time: time, id: id)))
            }, failed: { completion(.failure($0)) })
    }

    public func commit(
        session name: SessionName, _ commit: SessionCommit,
        completion: @escaping @Sendable (Result<CommitResult, StoreError>) -> Void
    ) {
        let cutoff = answerCutoff()
        let knownDigest: String?
        do throws(StoreError) {
            knownDigest = try Self.digest(of: name)
        } catch {
            return completion(.failure(error))
        }
        let keep = settings.keepRevisions
        pool.submit(
            { [self] connection throws(PostgresError) in
                var digest = knownDigest
                if digest == nil { digest = try self.digest(of: name, connection) }
                guard let digest else { return completion(.success(.unknownSession)) }
                try connection.execute("BEGIN")
                do throws(PostgresError) {
                    let (result, id) = try apply(digest, commit, keep: keep, answerCutoff: cutoff, connection)
                    try connection.execute(result == .committed ? "COMMIT" : "ROLLBACK")
                    completion(.success(result))
                    if result == .committed, let id, let state = commit.state {
                        announcer.announce([PostgresChangeListener.payload(id: id, revision: state.revision)])
                    }
                } catch {
                    _ = try? connection.execute("ROLLBACK")
                    // Another instance's transaction got there first (a serialization failure,
                    // or a unique key it stored meanwhile): the caller reads again.
                    guard error.isConflict else { throw error }
                    completion(.success(.conflict))
                }
            }, failed: { completion(.failure($0)) })
    }

    /// The digest a client's token names, made on the calling thread; `nil` for an id,
    /// which only the database knows.
    private static func digest(of name: SessionName) throws(StoreError) -> String? {
        if case .token(let token) = name { return try TokenDigest.of(token) }
        return nil
    }

    /// The digest of the session an id names, if there is one.
    private func digest(of name: SessionName, _ connection: PostgresConnection) throws(PostgresError) -> String? {
        guard case .id(let id) = name else { return nil }
        return try connection.execute("SELECT token_hash FROM sessions WHERE id = $1", [.text(id)]).rows.first?.first?.text
    }

    /// Writes a commit, in the caller's transaction, with a compare-and-swap on the
    /// revision. An answer stored for the same event id before `answerCutoff` has expired
    /// (retention has not removed it yet) and is replaced.
    /// Returns the result, and the session's public id when the commit made a new state.
    private func apply(
        _ digest: String, _ commit: SessionCommit, keep: Int, answerCutoff: Milliseconds, _ connection: PostgresConnection
    ) throws(PostgresError) -> (CommitResult, id: String?) {
        let time = commit.event.time
        let claimed: PostgresResult
        let answered: Int64 = commit.answer == nil ? 0 : 1
        if let (state, feed) = commit.change {
            let bytes = state.valuesBytes
            // The log's entries beyond --keep-revisions go first, in this transaction (a
            // conflict rolls it back): their sizes come off the session's history_bytes in
            // the one update of its row that follows.
            let dropped = try connection.execute(
                "DELETE FROM events WHERE token_hash = $1 AND revision < $2 RETURNING octet_length(state) + octet_length(payload)",
                [.text(digest), .integer(Int64(state.revision - keep))]
            ).rows.reduce(Int64(0)) { $0 + ($1.first?.integer ?? 0) }
            let added = Int64(bytes.count + commit.event.payload.count)
            // The update and the feed entry in one statement: the entry takes the session's
            // id and subject from the row it updates, and exists only if it did.
            claimed = try connection.execute(
                """
                WITH changed AS (
                    UPDATE sessions SET revision = $1, state = $2, last_used_ms = $3, history_bytes = history_bytes + $9,
                        answer_count = answer_count + $10
                    WHERE token_hash = $4 AND revision = $5
                    RETURNING id, subject, history_bytes, answer_count),
                entry AS (
                    INSERT INTO feed(session_id, subject, revision, cause, event, changed_keys, time_ms)
                    SELECT id, subject, $1, $6, $7, $8, $3 FROM changed
                    RETURNING session_id)
                SELECT entry.session_id, changed.history_bytes, changed.answer_count FROM entry, changed
                """,
                [
                    .integer(Int64(state.revision)), .bytes(bytes), .integer(time), .text(digest), .integer(Int64(commit.expectedRevision)),
                    .text(feed.cause.rawValue), feed.event.map(PostgresValue.bytes) ?? .null, .bytes(feed.changedKeys),
                    .integer(added - dropped), .integer(answered),
                ])
            if claimed.rows.count == 1 {
                try connection.execute(
                    "INSERT INTO events(token_hash, revision, event_id, kind, payload, state, time_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    [
                        .text(digest), .integer(Int64(state.revision)), commit.event.eventID.map(PostgresValue.text) ?? .null,
                        .text(commit.event.kind), .bytes(commit.event.payload), .bytes(bytes), .integer(time),
                    ])
            }
        } else {
            // Only an answer: the revision is checked all the same (and the row locked until
            // the transaction ends), so that the answer belongs to the state it was made at.
            claimed = try connection.execute(
                """
                UPDATE sessions SET last_used_ms = GREATEST(last_used_ms, $1), answer_count = answer_count + $4
                WHERE token_hash = $2 AND revision = $3
                RETURNING id, history_bytes, answer_count
                """,
                [.integer(time), .text(digest), .integer(Int64(commit.expectedRevision)), .integer(answered)])
        }
        guard let row = claimed.rows.first, claimed.rows.count == 1 else {
            let exists = try connection.execute("SELECT 1 FROM sessions WHERE token_hash = $1", [.text(digest)]).rows.isEmpty == false
            return (exists ? .conflict : .unknownSession, nil)
        }
        if let answer = commit.answer, let eventID = commit.event.eventID {
            let inserted = try connection.execute(
                """
                INSERT INTO answers(token_hash, event_id, fingerprint, status, body, time_ms) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (token_hash, event_id) DO UPDATE
                SET fingerprint = excluded.fingerprint, status = excluded.status, body = excluded.body, time_ms = excluded.time_ms,
                    seq = excluded.seq
                WHERE answers.time_ms < $7
                """,
                [
                    .text(digest), .text(eventID), .bytes(answer.fingerprint), .integer(Int64(answer.status)), .bytes(answer.body), .integer(answer.time),
                    .integer(answerCutoff),
                ])
            // Another instance answered the same event id first (and its answer is live).
            if inserted.affectedRows == 0 { return (.conflict, nil) }
        }
        try keepWithinBounds(digest, historyBytes: row[1].integer ?? 0, answers: row[2].integer ?? 0, connection)
        return (.committed, commit.change == nil ? nil : row[0].text)
    }

    /// Keeps the session's history within ``StoreSettings/maxHistoryBytes`` and its stored
    /// answers within ``StoreSettings/maxAnswersPerSession``, in the caller's transaction,
    /// dropping the oldest. The session's row counts both as they grow (answers replaced or
    /// removed by retention are still counted: an upper bound), so the exact sums are read
    /// only when a count passes its limit.
    private func keepWithinBounds(_ digest: String, historyBytes: Int64, answers: Int64, _ connection: PostgresConnection) throws(PostgresError) {
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

    /// The session's current state.
    private func currentState(_ digest: String, _ connection: PostgresConnection) throws(PostgresError) -> SessionState? {
        guard let row = try connection.execute("SELECT revision, state FROM sessions WHERE token_hash = $1", [.text(digest)]).rows.first
        else { return nil }
        guard let revision = row[0].integer else { throw .corrupt("session \(Self.name(digest, connection)): its row has no revision") }
        return try Self.restore(row[1], revision: Int(revision), session: Self.name(digest, connection))
    }

    private func touchIfStale(_ digest: String, _ connection: PostgresConnection) throws(PostgresError) {
        let time = now()
        guard touches.isDue(SessionKey(digest), at: time) else { return }
        try touch(digest, at: time, connection)
    }

    /// Writes the session's last use, unless it was written less than an interval ago.
    private func touch(_ digest: String, at time: Milliseconds, _ connection: PostgresConnection) throws(PostgresError) {
        try connection.execute(
            "UPDATE sessions SET last_used_ms = $1 WHERE token_hash = $2 AND last_used_ms < $3",
            [.integer(time), .text(digest), .integer(time - touches.interval)])
    }

    public func keepDefinitions(_ definitions: [KeptDefinition]) throws(StoreError) {
        let time = now()
        let keep = settings.keepDefinitions
        let result = waitForCompletion { (completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) in
            pool.submit(
                { connection throws(PostgresError) in
                    try connection.execute("BEGIN")
                    do throws(PostgresError) {
                        for definition in definitions {
                            try connection.execute(
                                """
                                INSERT INTO definitions(id, screen, document, served_ms) VALUES ($1, $2, $3, $4)
                                ON CONFLICT (id) DO UPDATE SET served_ms = GREATEST(definitions.served_ms, excluded.served_ms)
                                """,
                                [.text(definition.id), .text(definition.screen), .bytes(definition.document), .integer(time)])
                        }
                        for screen in Set(definitions.map(\.screen)).sorted() {
                            try connection.execute(
                                """
                                DELETE FROM definitions WHERE screen = $1 AND id NOT IN (
                                    SELECT id FROM definitions WHERE screen = $1 ORDER BY served_ms DESC, id LIMIT $2)
                                """,
                                [.text(screen), .integer(Int64(keep))])
                        }
                        try connection.execute("COMMIT")
                    } catch {
                        _ = try? connection.execute("ROLLBACK")
                        throw error
                    }
                    completion(.success(()))
                }, failed: { completion(.failure($0)) })
        }
        try (result ?? .failure(StoreError("the PostgreSQL pool closed"))).get()
    }

    public func keptDefinition(id: String, completion: @escaping @Sendable (Result<KeptDefinition?, StoreError>) -> Void) {
        pool.submit(
            { connection throws(PostgresError) in
                let row = try connection.execute("SELECT screen, document FROM definitions WHERE id = $1", [.text(id)]).rows.first
                guard let row, let screen = row[0].text else { return completion(.success(nil)) }
                completion(.success(KeptDefinition(id: id, screen: screen, document: row[1].bytes ?? [])))
            }, failed: { completion(.failure($0)) })
    }

    public func currentStateIfCached(session key: SessionKey) -> WatchedState? {
        nil
    }

    /// Never called: this store hands out no watches.
    public func touch(session key: SessionKey, watch: SessionWatch) {}

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

    public func sessionCount() -> Int {
        count.withLock { $0 }
    }

    public func checkHealth(completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        pool.submit(
            { [count] connection throws(PostgresError) in
                let sessions = try connection.execute("SELECT COUNT(*) FROM sessions").rows.first?.first?.integer ?? 0
                count.withLock { $0 = Int(sessions) }
                completion(.success(()))
            }, failed: { completion(.failure($0)) })
    }

    /// Listens for every instance's commits on a connection of its own (see
    /// ``PostgresChangeListener``); once.
    public func observeChanges(_ observer: @escaping @Sendable (StoreNotice) -> Void) {
        listener.withLock { listener in
            guard listener == nil else { return }
            listener = PostgresChangeListener(url: url, logger: logger, observer: observer)
        }
    }

    public func close() {
        listener.withLock { $0 }?.stop()
        retention.stop()
        pool.close()
        announcer.stop()
    }

    private func answerCutoff() -> Milliseconds {
        now() - Milliseconds(settings.idempotencyTTLSeconds) * 1000
    }

    public func removeExpired(completion: @escaping @Sendable (Result<Int, StoreError>) -> Void) {
        let time = now()
        let answerCutoff = time - Milliseconds(settings.idempotencyTTLSeconds) * 1000
        let sessionCutoff = time - Milliseconds(settings.sessionTTLSeconds) * 1000
        let feedCutoff = time - Milliseconds(settings.feedRetentionSeconds) * 1000
        pool.submit(
            { [logger, count, announcer] connection throws(PostgresError) in
                try connection.execute("DELETE FROM answers WHERE time_ms < $1", [.integer(answerCutoff)])
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
}

extension PostgresSessionStore {
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

    /// The feed is ordered by transaction id, which only grows in one database's history. A
    /// database restored from a dump, or a standby promoted after losing transactions, hands
    /// out ids below entries already written: new entries would sort before them, and
    /// readers past those would miss them. The feed is emptied then; readers' cursors are
    /// past everything it holds, which reads as expired (410), so that backends read their
    /// sessions again.
    static func resetFeedIfTransactionIDsWentBack(_ connection: PostgresConnection, _ logger: Logger) throws(PostgresError) {
        let newestAhead = "SELECT (SELECT xid FROM feed ORDER BY xid DESC, seq DESC LIMIT 1) >= pg_current_xact_id()"
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
            row[3] == .null || row[3].text != nil, row[6] == .null || row[6].bytes != nil, let changedKeys = row[7].bytes
        else { throw .corrupt("the feed entry at \(row.first.map { "\($0)" } ?? "?") does not decode") }
        return FeedEntry(
            cursor: cursor, sessionID: sessionID, subject: row[3].text, revision: Int(revision),
            record: FeedRecord(cause: cause, event: row[6].bytes, changedKeys: changedKeys), time: time)
    }

    /// A state as the database holds it (its values' JSON), read without a schema. One
    /// that does not decode is damaged: an error, never a default state.
    static func restore(_ value: PostgresValue, revision: Int, session: String) throws(PostgresError) -> SessionState {
        do throws(StoredStateError) {
            return try StoredState.decode(value.bytes, revision: revision)
        } catch {
            throw .corrupt("session \(session): \(error)")
        }
    }

    /// How a damaged session is named in messages and logs: its public id, else the start
    /// of its token's digest (never the token).
    static func name(_ digest: String, _ connection: PostgresConnection) -> String {
        let id = try? connection.execute("SELECT id FROM sessions WHERE token_hash = $1", [.text(digest)]).rows.first?.first?.text
        return id.flatMap { $0 } ?? "with token digest \(digest.prefix(12))…"
    }

    /// The state at a revision, if the log still holds it.
    func state(_ digest: String, at revision: Int, current: SessionState, _ connection: PostgresConnection) throws(PostgresError) -> RevisionLookup {
        if revision == current.revision { return .found(current) }
        if revision > current.revision { return .future(current: current.revision) }
        if let row = try connection.execute(
            "SELECT state FROM events WHERE token_hash = $1 AND revision = $2", [.text(digest), .integer(Int64(revision))]
        ).rows.first {
            return .found(try Self.restore(row[0], revision: revision, session: Self.name(digest, connection)))
        }
        let oldest = try connection.execute("SELECT MIN(revision) FROM events WHERE token_hash = $1", [.text(digest)]).rows.first?.first?.integer
        return .tooOld(oldestKept: oldest.map(Int.init) ?? current.revision)
    }

    /// The answer stored for an event id, if it is younger than `cutoff`.
    func answer(_ digest: String, eventID: String, notBefore cutoff: Milliseconds, _ connection: PostgresConnection) throws(PostgresError) -> StoredAnswer? {
        guard
            let row = try connection.execute(
                "SELECT fingerprint, status, body, time_ms FROM answers WHERE token_hash = $1 AND event_id = $2",
                [.text(digest), .text(eventID)]
            ).rows.first
        else { return nil }
        guard let time = row[3].integer else { throw .corrupt("session \(Self.name(digest, connection)): a stored answer has no time") }
        guard time >= cutoff else { return nil }
        guard let answer = StoredAnswer(fingerprint: row[0].bytes, status: row[1].integer, body: row[2].bytes, time: time) else {
            throw .corrupt("session \(Self.name(digest, connection)): the answer stored for an eventId does not decode")
        }
        return answer
    }
}
