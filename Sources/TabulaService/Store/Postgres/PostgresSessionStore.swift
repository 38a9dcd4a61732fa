import TabulaPlatform
public import Logging
public import TabulaCore
import TabulaPostgres

/// Sessions in PostgreSQL, for several `tabula serve` processes behind a load balancer.
///
/// Nothing is cached across requests (another instance may have written), so every read
/// and write asks the database. A write locks the session's row as it reads it
/// (`SELECT … FOR UPDATE`), so concurrent writers of one session, in this process or
/// another, queue in the database in turn instead of racing: with optimistic retries alone,
/// a writer that kept losing to others could run out of attempts (seen with 16 clients on
/// one session). The update is still a compare-and-swap on the revision, and a loser (an
/// answer another instance stored first) rolls back and runs again on the fresh state.
public final class PostgresSessionStore: SessionStore {
    private let pool: PostgresPool
    private let settings: StoreSettings
    private let logger: Logger
    private let retention: RetentionTimer
    private let count = Locked(0)
    private let touches: TouchTracker
    private let now: @Sendable () -> Milliseconds
    static let maxAttempts = 50

    /// Connects, migrates the schema, and starts `poolSize` workers.
    public init(
        url: String, poolSize: Int, settings: StoreSettings, logger: Logger,
        retentionIntervalSeconds: Double = 60, now: @escaping @Sendable () -> Milliseconds = unixMilliseconds
    ) throws(StoreError) {
        do {
            let connection = try PostgresConnection(url: url)
            try PostgresSchema.migrate(connection)
            let sessions = try connection.execute("SELECT COUNT(*) FROM sessions").rows.first?.first?.integer ?? 0
            count.withLock { $0 = Int(sessions) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("cannot reach PostgreSQL at \(Self.redacted(url)): \(error)")
        }
        self.settings = settings
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

    public func createSession(
        token: String, initialState: SessionState, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) {
        let time = now()
        pool.submit({ [count] connection throws(PostgresError) in
            let bytes = initialState.valuesBytes
            try connection.execute("BEGIN")
            do throws(PostgresError) {
                try connection.execute(
                    "INSERT INTO sessions(token, revision, state, created_ms, last_used_ms) VALUES ($1, 0, $2, $3, $3)",
                    [.text(token), .bytes(bytes), .integer(time)])
                try connection.execute(
                    "INSERT INTO events(token, revision, event_id, kind, payload, state, time_ms) VALUES ($1, 0, NULL, 'create', $2, $3, $4)",
                    [.text(token), .bytes(Array("{}".utf8)), .bytes(bytes), .integer(time)])
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
            count.withLock { $0 += 1 }
            completion(.success(()))
        }, failed: { completion(.failure($0)) })
    }

    public func read<Value: Sendable>(
        session token: String, _ body: @escaping @Sendable (any SessionReading) -> Value,
        completion: @escaping @Sendable (Result<Value?, StoreError>) -> Void
    ) {
        let cutoff = answerCutoff()
        pool.submit({ [self] connection throws(PostgresError) in
            guard let current = try currentState(token, connection) else { return completion(.success(nil)) }
            let view = PostgresSessionView(token: token, current: current, connection: connection, answerCutoff: cutoff)
            let value = body(view)
            if let failure = view.failure { throw failure }
            try touchIfStale(token, connection)
            completion(.success(value))
        }, failed: { completion(.failure($0)) })
    }

    public func write<Value: Sendable>(
        session token: String, _ body: @escaping @Sendable (inout SessionWriting) -> Value,
        completion: @escaping @Sendable (Result<Value?, StoreError>) -> Void
    ) {
        let cutoff = answerCutoff()
        let keep = settings.keepRevisions
        pool.submit({ [self] connection throws(PostgresError) in
            for attempt in 1...Self.maxAttempts {
                try connection.execute("BEGIN")
                do throws(PostgresError) {
                    guard let current = try currentState(token, connection, lockingRow: true) else {
                        try connection.execute("COMMIT")
                        return completion(.success(nil))
                    }
                    let view = PostgresSessionView(token: token, current: current, connection: connection, answerCutoff: cutoff)
                    var writing = SessionWriting(reading: view, time: now())
                    let value = body(&writing)
                    if let failure = view.failure { throw failure }
                    if let commit = writing.commit {
                        guard try apply(token, commit, from: current, keep: keep, answerCutoff: cutoff, connection) else {
                            // Another instance moved the session on: run again on the fresh state.
                            try connection.execute("ROLLBACK")
                            usleep(UInt32.random(in: 100...(1000 * UInt32(min(attempt, 20)))))
                            continue
                        }
                    } else {
                        try touch(token, at: now(), connection)
                    }
                    try connection.execute("COMMIT")
                    return completion(.success(value))
                } catch {
                    _ = try? connection.execute("ROLLBACK")
                    guard error.isConflict else { throw error }
                }
            }
            throw PostgresError(message: "the session kept changing under \(Self.maxAttempts) attempts; retry")
        }, failed: { completion(.failure($0)) })
    }

    /// Writes a commit with a compare-and-swap on the revision; `false` when it moved.
    /// An answer stored for the same event id before `answerCutoff` has expired (retention
    /// has not removed it yet) and is replaced.
    private func apply(
        _ token: String, _ commit: SessionWriting.Commit, from current: SessionState, keep: Int, answerCutoff: Milliseconds,
        _ connection: PostgresConnection
    ) throws(PostgresError) -> Bool {
        if commit.state.revision == current.revision + 1 {
            let bytes = commit.state.valuesBytes
            let updated = try connection.execute(
                "UPDATE sessions SET revision = $1, state = $2, last_used_ms = $3 WHERE token = $4 AND revision = $5",
                [.integer(Int64(commit.state.revision)), .bytes(bytes), .integer(commit.event.time), .text(token), .integer(Int64(current.revision))])
            guard updated.affectedRows == 1 else { return false }
            try connection.execute(
                "INSERT INTO events(token, revision, event_id, kind, payload, state, time_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [.text(token), .integer(Int64(commit.state.revision)), commit.event.eventID.map(PostgresValue.text) ?? .null,
                 .text(commit.event.kind), .bytes(commit.event.payload), .bytes(bytes), .integer(commit.event.time)])
            try connection.execute(
                "DELETE FROM events WHERE token = $1 AND revision < $2", [.text(token), .integer(Int64(commit.state.revision - keep))])
        }
        if let answer = commit.answer, let eventID = commit.event.eventID {
            let inserted = try connection.execute(
                """
                INSERT INTO answers(token, event_id, fingerprint, status, body, time_ms) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (token, event_id) DO UPDATE
                SET fingerprint = excluded.fingerprint, status = excluded.status, body = excluded.body, time_ms = excluded.time_ms
                WHERE answers.time_ms < $7
                """,
                [.text(token), .text(eventID), .bytes(answer.fingerprint), .integer(Int64(answer.status)), .bytes(answer.body), .integer(answer.time),
                 .integer(answerCutoff)])
            // Another instance answered the same event id first (and its answer is live): run
            // again and replay it.
            if inserted.affectedRows == 0 { return false }
        }
        return true
    }

    /// The session's state; `lockingRow` holds its row until the transaction ends.
    private func currentState(
        _ token: String, _ connection: PostgresConnection, lockingRow: Bool = false
    ) throws(PostgresError) -> SessionState? {
        let query = lockingRow
            ? "SELECT revision, state FROM sessions WHERE token = $1 FOR UPDATE"
            : "SELECT revision, state FROM sessions WHERE token = $1"
        guard let row = try connection.execute(query, [.text(token)]).rows.first,
            let revision = row[0].integer
        else { return nil }
        return PostgresSessionView.restore(row[1], revision: Int(revision))
    }

    private func touchIfStale(_ token: String, _ connection: PostgresConnection) throws(PostgresError) {
        let time = now()
        guard touches.isDue(SessionKey(token), at: time) else { return }
        try touch(token, at: time, connection)
    }

    /// Writes the session's last use, unless it was written less than an interval ago.
    private func touch(_ token: String, at time: Milliseconds, _ connection: PostgresConnection) throws(PostgresError) {
        try connection.execute(
            "UPDATE sessions SET last_used_ms = $1 WHERE token = $2 AND last_used_ms < $3",
            [.integer(time), .text(token), .integer(time - touches.interval)])
    }

    public func keepDefinitions(_ definitions: [KeptDefinition]) throws(StoreError) {
        let time = now()
        let keep = settings.keepDefinitions
        let result = waitForCompletion { (completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) in
            pool.submit({ connection throws(PostgresError) in
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
        pool.submit({ connection throws(PostgresError) in
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

    public func sessionCount() -> Int {
        count.withLock { $0 }
    }

    public func checkHealth(completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        pool.submit({ [count] connection throws(PostgresError) in
            let sessions = try connection.execute("SELECT COUNT(*) FROM sessions").rows.first?.first?.integer ?? 0
            count.withLock { $0 = Int(sessions) }
            completion(.success(()))
        }, failed: { completion(.failure($0)) })
    }

    public func close() {
        retention.stop()
        pool.close()
    }

    private func answerCutoff() -> Milliseconds {
        now() - Milliseconds(settings.idempotencyTTLSeconds) * 1000
    }

    public func removeExpired(completion: @escaping @Sendable (Result<Int, StoreError>) -> Void) {
        let time = now()
        let answerCutoff = time - Milliseconds(settings.idempotencyTTLSeconds) * 1000
        let sessionCutoff = time - Milliseconds(settings.sessionTTLSeconds) * 1000
        pool.submit({ [logger, count] connection throws(PostgresError) in
            try connection.execute("DELETE FROM answers WHERE time_ms < $1", [.integer(answerCutoff)])
            let idle = try connection.execute(
                "DELETE FROM sessions WHERE token IN (SELECT token FROM sessions WHERE last_used_ms < $1 LIMIT 1000) RETURNING token",
                [.integer(sessionCutoff)]).rows.compactMap { $0.first?.text }
            for token in idle {
                try connection.execute("DELETE FROM events WHERE token = $1", [.text(token)])
                try connection.execute("DELETE FROM answers WHERE token = $1", [.text(token)])
            }
            let sessions = try connection.execute("SELECT COUNT(*) FROM sessions").rows.first?.first?.integer ?? 0
            count.withLock { $0 = Int(sessions) }
            if !idle.isEmpty { logger.info("removed \(idle.count) idle sessions") }
            completion(.success(idle.count))
        }, failed: { [logger] error in
            logger.warning("retention failed: \(error)")
            completion(.failure(error))
        })
    }
}

/// A transaction's view of a session in PostgreSQL, on the worker's connection.
final class PostgresSessionView: SessionReading, @unchecked Sendable {
    let current: SessionState
    private let token: String
    private let connection: PostgresConnection
    private let answerCutoff: Milliseconds
    private(set) var failure: PostgresError?

    init(token: String, current: SessionState, connection: PostgresConnection, answerCutoff: Milliseconds) {
        self.token = token
        self.current = current
        self.connection = connection
        self.answerCutoff = answerCutoff
    }

    static func restore(_ value: PostgresValue, revision: Int) -> SessionState {
        let json = (try? JSONParser().parse(value.bytes ?? [])) ?? .object(JSONObject())
        return SessionState(storedValues: json, revision: revision)
    }

    func state(at revision: Int) -> RevisionLookup {
        if revision == current.revision { return .found(current) }
        if revision > current.revision { return .future(current: current.revision) }
        do {
            if let row = try connection.execute(
                "SELECT state FROM events WHERE token = $1 AND revision = $2", [.text(token), .integer(Int64(revision))]).rows.first
            {
                return .found(Self.restore(row[0], revision: revision))
            }
            let oldest = try connection.execute("SELECT MIN(revision) FROM events WHERE token = $1", [.text(token)]).rows.first?.first?.integer
            return .tooOld(oldestKept: oldest.map(Int.init) ?? current.revision)
        } catch {
            failure = failure ?? error  // the first error is the cause
            return .tooOld(oldestKept: current.revision)
        }
    }

    func storedAnswer(eventID: String) -> StoredAnswer? {
        do {
            guard let row = try connection.execute(
                "SELECT fingerprint, status, body, time_ms FROM answers WHERE token = $1 AND event_id = $2",
                [.text(token), .text(eventID)]).rows.first,
                let status = row[1].integer, let time = row[3].integer, time >= answerCutoff
            else { return nil }
            return StoredAnswer(fingerprint: row[0].bytes ?? [], status: Int(status), body: row[2].bytes ?? [], time: time)
        } catch {
            failure = failure ?? error
            return nil
        }
    }
}
