import TabulaPostgres

/// The PostgreSQL schema and its versioned migrations, applied at start under an advisory
/// lock so that instances starting together migrate once.
enum PostgresSchema {
    /// One step of the schema: SQL (statements separated by `;`), or code where SQL cannot
    /// say it.
    enum Migration: ExpressibleByStringLiteral {
        case sql(String)
        case code(@Sendable (PostgresConnection) throws(PostgresError) -> Void)

        init(stringLiteral sql: String) {
            self = .sql(sql)
        }

        func run(_ connection: PostgresConnection) throws(PostgresError) {
            switch self {
            case .sql(let sql):
                for statement in sql.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
                    try connection.execute(String(statement))
                }
            case .code(let body):
                try body(connection)
            }
        }
    }

    static let migrations: [Migration] = [
        """
        CREATE TABLE sessions (
            token TEXT PRIMARY KEY,
            revision BIGINT NOT NULL,
            state BYTEA NOT NULL,
            created_ms BIGINT NOT NULL,
            last_used_ms BIGINT NOT NULL
        );
        CREATE INDEX sessions_by_last_use ON sessions(last_used_ms);
        CREATE TABLE events (
            token TEXT NOT NULL,
            revision BIGINT NOT NULL,
            event_id TEXT,
            kind TEXT NOT NULL,
            payload BYTEA NOT NULL,
            state BYTEA NOT NULL,
            time_ms BIGINT NOT NULL,
            PRIMARY KEY (token, revision)
        );
        CREATE TABLE answers (
            token TEXT NOT NULL,
            event_id TEXT NOT NULL,
            fingerprint BYTEA NOT NULL,
            status BIGINT NOT NULL,
            body BYTEA NOT NULL,
            time_ms BIGINT NOT NULL,
            PRIMARY KEY (token, event_id)
        );
        CREATE INDEX answers_by_time ON answers(time_ms);
        """,
        // Version 2: the documents of the definitions every instance served, so that any
        // instance can render a client's copy made by another one's definition.
        """
        CREATE TABLE definitions (
            id TEXT PRIMARY KEY,
            screen TEXT NOT NULL,
            document BYTEA NOT NULL,
            served_ms BIGINT NOT NULL
        );
        CREATE INDEX definitions_by_screen ON definitions(screen, served_ms);
        """,
        // Version 3: sessions get a public id and a subject, and tokens are kept only as
        // their digest (`TokenDigest`), so that a copy of the database does not let anyone
        // act as a user.
        .code(identifySessions),
        // Version 4: the feed of committed changes. An entry is placed by its transaction's
        // id, then by a sequence within it (see `PostgresSessionStore.readFeed`), and
        // `feed_pruned` holds the place of the newest entry retention removed.
        """
        CREATE TABLE feed (
            xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
            seq BIGSERIAL,
            session_id TEXT NOT NULL,
            subject TEXT,
            revision BIGINT NOT NULL,
            cause TEXT NOT NULL,
            event BYTEA,
            changed_keys BYTEA NOT NULL,
            time_ms BIGINT NOT NULL,
            PRIMARY KEY (xid, seq)
        );
        CREATE TABLE feed_pruned (xid xid8 NOT NULL, seq BIGINT NOT NULL);
        INSERT INTO feed_pruned VALUES ('0', 0);
        """,
        // Version 5: each session counts the bytes of its log and its stored answers, so
        // that a commit knows without reading them whether they are within their bounds
        // (--max-history-bytes, --max-answers-per-session).
        """
        ALTER TABLE sessions ADD COLUMN history_bytes BIGINT NOT NULL DEFAULT 0, ADD COLUMN answer_count BIGINT NOT NULL DEFAULT 0;
        UPDATE sessions SET
            history_bytes = COALESCE((SELECT SUM(octet_length(state) + octet_length(payload)) FROM events WHERE events.token_hash = sessions.token_hash), 0),
            answer_count = (SELECT COUNT(*) FROM answers WHERE answers.token_hash = sessions.token_hash);
        ALTER TABLE answers ADD COLUMN seq BIGSERIAL;
        """,
    ]

    /// Schema version 3: every session gets an id (``SessionID``) and its token is replaced
    /// by the token's digest, in the sessions, the log and the answers.
    private static func identifySessions(_ connection: PostgresConnection) throws(PostgresError) {
        try connection.execute("ALTER TABLE sessions ADD COLUMN id TEXT, ADD COLUMN subject TEXT")
        let tokens = try connection.execute("SELECT token FROM sessions").rows.compactMap { $0.first?.text }
        for token in tokens {
            let digest: String
            do throws(StoreError) {
                digest = try TokenDigest.of(token)
            } catch {
                throw PostgresError(message: error.description)
            }
            try connection.execute("UPDATE sessions SET token = $1, id = $2 WHERE token = $3", [.text(digest), .text(SessionID.make()), .text(token)])
            try connection.execute("UPDATE events SET token = $1 WHERE token = $2", [.text(digest), .text(token)])
            try connection.execute("UPDATE answers SET token = $1 WHERE token = $2", [.text(digest), .text(token)])
        }
        for table in ["sessions", "events", "answers"] {
            try connection.execute("ALTER TABLE \(table) RENAME COLUMN token TO token_hash")
        }
        try connection.execute("CREATE UNIQUE INDEX sessions_by_id ON sessions(id)")
    }

    static var currentVersion: Int { migrations.count }
    private static let lockKey: Int64 = 0x7461_6275_6C61  // "tabula"

    static func migrate(_ connection: PostgresConnection) throws(StoreError) {
        do {
            try connection.execute("SELECT pg_advisory_lock($1)", [.integer(lockKey)])
            defer { _ = try? connection.execute("SELECT pg_advisory_unlock($1)", [.integer(lockKey)]) }
            // Looked up first rather than CREATE TABLE IF NOT EXISTS, whose NOTICE libpq prints
            // on standard error at every start. The advisory lock makes the two steps one.
            let exists = try connection.execute("SELECT to_regclass('tabula_schema') IS NOT NULL").rows.first?.first?.integer == 1
            if !exists { try connection.execute("CREATE TABLE tabula_schema (version BIGINT NOT NULL)") }
            let version = Int(try connection.execute("SELECT COALESCE(MAX(version), 0) FROM tabula_schema").rows.first?.first?.integer ?? 0)
            guard version <= currentVersion else {
                throw StoreError(
                    "the database schema is version \(version), but this tabula knows versions up to \(currentVersion); run a newer tabula")
            }
            for (index, migration) in migrations.enumerated() where index + 1 > version {
                try connection.execute("BEGIN")
                do {
                    try migration.run(connection)
                    try connection.execute("INSERT INTO tabula_schema(version) VALUES ($1)", [.integer(Int64(index + 1))])
                    try connection.execute("COMMIT")
                } catch {
                    _ = try? connection.execute("ROLLBACK")
                    throw error
                }
            }
            // Version 3 replaced tokens by their digests: the rows it rewrote stay in the
            // tables' files as dead versions until they are rewritten, so that a copy of
            // the files would still hold tokens. VACUUM FULL writes each table anew.
            if version > 0 && version < 3 { try connection.execute("VACUUM FULL sessions, events, answers") }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("cannot migrate the database: \(error)")
        }
    }
}
