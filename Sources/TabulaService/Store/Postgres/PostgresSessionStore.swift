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
    let pool: PostgresPool
    let settings: StoreSettings
    let logger: Logger
    let retention: RetentionTimer
    let count = Locked(0)
    let touches: TouchTracker
    let now: @Sendable () -> Milliseconds
    let url: String
    let listener = Locked<PostgresChangeListener?>(nil)
    let announcer: PostgresChangeAnnouncer
    public let limitCounts = LimitCounts()

    /// Connections (and worker threads) a process opens when not told otherwise: a few
    /// transactions in flight keep the database busy while others travel, and each
    /// connection is a PostgreSQL backend process on the server.
    public static let defaultPoolSize = 4

    /// Connects, migrates the schema, and starts `poolSize` workers. The migration's
    /// connection has no statement timeout: rewriting a large table, or waiting for another
    /// instance's migration, takes as long as it takes, and a timeout would fail every start.
    public init(
        url: String, poolSize: Int = defaultPoolSize, settings: StoreSettings, logger: Logger,
        retentionIntervalSeconds: Double = 60, now: @escaping @Sendable () -> Milliseconds = unixMilliseconds
    ) throws(StoreError) {
        do {
            let connection = try PostgresConnection(url: url, statementTimeoutMilliseconds: nil)
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
        retention.start(removingExpiredFrom: self)
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
                // The read is done: a last use not written (the row busy, the connection
                // lost) waits for the next one, as on SQLite, and fails no read.
                if case .token = name { try? touchIfStale(digest, connection) }
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
            let keepFrom = Int64(state.revision - keep)
            // The log's entries beyond --keep-revisions leave in this transaction, and their
            // sizes come off the session's history_bytes in the one update of its row. They
            // are measured here, without a lock, and deleted only once that update holds
            // the row: every writer of a session locks its row before its log rows, as a
            // deletion of the session does, so none waits for another in a circle. No other
            // writer changes them meanwhile: any that did moved the revision, and the
            // update's compare-and-swap finds it.
            let dropped =
                try connection.execute(
                    "SELECT COALESCE(SUM(octet_length(state) + octet_length(payload)), 0) FROM events WHERE token_hash = $1 AND revision < $2",
                    [.text(digest), .integer(keepFrom)]
                ).rows.first?.first?.integer ?? 0
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
                do throws(PostgresError) {
                    try connection.execute(
                        """
                        WITH dropped AS (DELETE FROM events WHERE token_hash = $1 AND revision < $8)
                        INSERT INTO events(token_hash, revision, event_id, kind, payload, state, time_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
                        """,
                        [
                            .text(digest), .integer(Int64(state.revision)), commit.event.eventID.map(PostgresValue.text) ?? .null,
                            .text(commit.event.kind), .bytes(commit.event.payload), .bytes(bytes), .integer(time), .integer(keepFrom),
                        ])
                } catch  where error.sqlState == "23505" {
                    // The session's row is locked, at the revision before: no other writer can
                    // have logged this one. A log row already there is damage (a partial
                    // restore), not a race to retry a hundred times.
                    let id = claimed.rows.first?.first?.text ?? "?"
                    throw PostgresError.corrupt(
                        "session \(id): the log already holds revision \(state.revision), past the session's revision \(commit.expectedRevision)")
                }
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

    private func touchIfStale(_ digest: String, _ connection: PostgresConnection) throws(PostgresError) {
        let time = now()
        guard touches.isDue(SessionKey(digest), at: time) else { return }
        try touch(digest, at: time, connection)
    }

    /// Writes the session's last use, unless it was written less than an interval ago, or
    /// another transaction holds its row (a commit, which writes it anyway): a read never
    /// waits for another instance's write.
    private func touch(_ digest: String, at time: Milliseconds, _ connection: PostgresConnection) throws(PostgresError) {
        try connection.execute(
            """
            UPDATE sessions SET last_used_ms = $1 WHERE token_hash IN (
                SELECT token_hash FROM sessions WHERE token_hash = $2 AND last_used_ms < $3 FOR UPDATE SKIP LOCKED)
            """,
            [.integer(time), .text(digest), .integer(time - touches.interval)])
    }

    public func currentStateIfCached(session key: SessionKey) -> WatchedState? {
        nil
    }

    /// Never called: this store hands out no watches.
    public func touch(session key: SessionKey, watch: SessionWatch) {}

    public func sessionCount() -> Int {
        count.withLock { $0 }
    }

    /// A statement the server answers without reading a table: a count of the sessions on
    /// every probe would take longer than a probe may, with millions of them, and hold a
    /// pool connection meanwhile. Retention counts them (``sessionCount()``).
    public func checkHealth(completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        pool.submit(
            { connection throws(PostgresError) in
                _ = try connection.execute("SELECT 1")
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

    func answerCutoff() -> Milliseconds {
        now() - Milliseconds(settings.idempotencyTTLSeconds) * 1000
    }

}
