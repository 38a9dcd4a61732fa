import TabulaSQLite

/// The SQLite schema and its versioned migrations, applied at start.
enum SQLiteSchema {
    /// One step of the schema: SQL, or code where SQL cannot say it.
    enum Migration: ExpressibleByStringLiteral {
        case sql(String)
        case code(@Sendable (SQLiteDatabase) throws(SQLiteError) -> Void)

        init(stringLiteral sql: String) {
            self = .sql(sql)
        }

        func run(_ database: SQLiteDatabase) throws(SQLiteError) {
            switch self {
            case .sql(let sql): try database.execute(sql)
            case .code(let body): try body(database)
            }
        }
    }

    /// Migration N (1-based) brings the schema from version N-1 to N.
    static let migrations: [Migration] = [
        """
        CREATE TABLE sessions (
            token TEXT PRIMARY KEY,
            revision INTEGER NOT NULL,
            state BLOB NOT NULL,
            created_ms INTEGER NOT NULL,
            last_used_ms INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX sessions_by_last_use ON sessions(last_used_ms);
        CREATE TABLE events (
            token TEXT NOT NULL,
            revision INTEGER NOT NULL,
            event_id TEXT,
            kind TEXT NOT NULL,
            payload BLOB NOT NULL,
            state BLOB NOT NULL,
            time_ms INTEGER NOT NULL,
            PRIMARY KEY (token, revision)
        ) WITHOUT ROWID;
        CREATE TABLE answers (
            token TEXT NOT NULL,
            event_id TEXT NOT NULL,
            fingerprint BLOB NOT NULL,
            status INTEGER NOT NULL,
            body BLOB NOT NULL,
            time_ms INTEGER NOT NULL,
            PRIMARY KEY (token, event_id)
        ) WITHOUT ROWID;
        CREATE INDEX answers_by_time ON answers(time_ms);
        """,
        // Version 2: a session's current state is its newest log entry, so an event writes
        // one log row instead of also rewriting the session row and its last-use index entry
        // (fewer pages written per event). Heads missing from the log are copied in first, so
        // nothing held only by `sessions` is lost.
        """
        INSERT OR IGNORE INTO events(token, revision, event_id, kind, payload, state, time_ms)
            SELECT token, revision, NULL, 'migrated', x'7b7d', state, last_used_ms FROM sessions;
        ALTER TABLE sessions DROP COLUMN revision;
        ALTER TABLE sessions DROP COLUMN state;
        """,
        // Version 3: the log of a session is a ring of `--keep-revisions` + 1 slots
        // (revision modulo the ring's size), so an event overwrites its slot's row in place
        // instead of appending one row and deleting another (B-tree splits and merges on every
        // event). Rows start parked on negative slots; `fitRing` places them.
        """
        CREATE TABLE events_ring (
            token TEXT NOT NULL,
            slot INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            event_id TEXT,
            kind TEXT NOT NULL,
            payload BLOB NOT NULL,
            state BLOB NOT NULL,
            time_ms INTEGER NOT NULL,
            PRIMARY KEY (token, slot)
        ) WITHOUT ROWID;
        INSERT INTO events_ring SELECT token, -1 - revision, revision, event_id, kind, payload, state, time_ms FROM events;
        DROP TABLE events;
        ALTER TABLE events_ring RENAME TO events;
        CREATE TABLE tabula_settings (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        """,
        // Version 4: the documents of the definitions served, so that a client's copy made
        // by an earlier definition can be rendered after a deployment.
        """
        CREATE TABLE definitions (
            id TEXT PRIMARY KEY,
            screen TEXT NOT NULL,
            document BLOB NOT NULL,
            served_ms INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX definitions_by_screen ON definitions(screen, served_ms);
        """,
        // Version 5: sessions get a public id and a subject, and tokens are kept only as
        // their digest (`TokenDigest`), so that a copy of the database does not let anyone
        // act as a user.
        .code(identifySessions),
        // Version 6: the feed of committed changes, in commit order (the one writer's), and
        // the cursor of the newest entry retention removed. Cursors are rowids, which SQLite
        // takes past the largest in the table; retention always keeps the newest entry, so
        // that they keep increasing without AUTOINCREMENT's write of a second table.
        """
        CREATE TABLE feed (
            cursor INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            subject TEXT,
            revision INTEGER NOT NULL,
            cause TEXT NOT NULL,
            event BLOB,
            changed_keys BLOB NOT NULL,
            time_ms INTEGER NOT NULL
        );
        INSERT INTO tabula_settings(name, value) VALUES ('feed_pruned', 0);
        """,
        // Version 7: answers are numbered as they are stored, so that a session keeps its
        // newest (--max-answers-per-session) even among answers stored in one millisecond.
        "ALTER TABLE answers ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;",
        // Version 8: the log is a rowid table, its key in an index. A WITHOUT ROWID table
        // keeps at most about a quarter of a page of a row in its B-tree and the rest on an
        // overflow page of its own, and copies rows into its interior pages: a log row, which
        // holds a whole state, took a leaf and an overflow page, freed and allocated again, on
        // every event. A rowid table keeps rows up to nearly a page in the leaf, and an event
        // that overwrites its slot rewrites that leaf alone (the key does not change).
        """
        CREATE TABLE events_rowid (
            token_hash TEXT NOT NULL,
            slot INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            event_id TEXT,
            kind TEXT NOT NULL,
            payload BLOB NOT NULL,
            state BLOB NOT NULL,
            time_ms INTEGER NOT NULL,
            PRIMARY KEY (token_hash, slot)
        );
        INSERT INTO events_rowid SELECT token_hash, slot, revision, event_id, kind, payload, state, time_ms FROM events;
        DROP TABLE events;
        ALTER TABLE events_rowid RENAME TO events;
        """,
    ]

    /// Schema version 5: every session gets an id (``SessionID``) and its token is replaced
    /// by the token's digest, in the sessions, the log and the answers.
    private static func identifySessions(_ database: SQLiteDatabase) throws(SQLiteError) {
        try database.execute(
            """
            ALTER TABLE sessions ADD COLUMN id TEXT;
            ALTER TABLE sessions ADD COLUMN subject TEXT;
            """)
        try replaceTokens(database)
        try database.execute(
            """
            ALTER TABLE sessions RENAME COLUMN token TO token_hash;
            ALTER TABLE events RENAME COLUMN token TO token_hash;
            ALTER TABLE answers RENAME COLUMN token TO token_hash;
            CREATE UNIQUE INDEX sessions_by_id ON sessions(id);
            """)
    }

    /// Gives each session an id and replaces its token by the token's digest. Its own
    /// function, so that its statements are finalized before the columns are renamed.
    private static func replaceTokens(_ database: SQLiteDatabase) throws(SQLiteError) {
        let tokens = try database.prepare("SELECT token FROM sessions").rows().compactMap { $0.first?.text }
        let replaceInSessions = try database.prepare("UPDATE sessions SET token = ?1, id = ?2 WHERE token = ?3")
        let replaceInEvents = try database.prepare("UPDATE events SET token = ?1 WHERE token = ?2")
        let replaceInAnswers = try database.prepare("UPDATE answers SET token = ?1 WHERE token = ?2")
        for token in tokens {
            let digest: String
            do throws(StoreError) {
                digest = try TokenDigest.of(token)
            } catch {
                throw SQLiteError(code: 1, message: error.description)
            }
            try replaceInSessions.run([.text(digest), .text(SessionID.make()), .text(token)])
            try replaceInEvents.run([.text(digest), .text(token)])
            try replaceInAnswers.run([.text(digest), .text(token)])
        }
    }

    static var currentVersion: Int { migrations.count }
    /// The newest migration that removes secrets (tokens in the clear, version 5).
    static let lastMigrationRemovingSecrets = 5

    /// Makes the log's ring `size` slots long (`--keep-revisions` + 1) when it is not yet:
    /// entries older than the newest `size` of their session are deleted, and every entry
    /// moves to slot `revision % size` (parked on negative slots first, so no two rows ever
    /// claim one slot). A restart with another `--keep-revisions` lands here.
    static func fitRing(_ database: SQLiteDatabase, size: Int) throws(StoreError) {
        do {
            let current = try database.prepare("SELECT value FROM tabula_settings WHERE name = 'ring_size'").rows()
            guard current.first?.first?.integer != Int64(size) else { return }
            try database.execute("BEGIN IMMEDIATE")
            do {
                try database.execute(
                    """
                    DELETE FROM events WHERE (token_hash, revision) IN (
                        SELECT events.token_hash, events.revision FROM events
                        JOIN (SELECT token_hash, MAX(revision) AS head FROM events GROUP BY token_hash) AS heads
                            ON heads.token_hash = events.token_hash
                        WHERE events.revision <= heads.head - \(size));
                    UPDATE events SET slot = -1 - revision;
                    UPDATE events SET slot = revision % \(size);
                    INSERT OR REPLACE INTO tabula_settings(name, value) VALUES ('ring_size', \(size));
                    """)
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        } catch {
            throw StoreError("cannot resize the event log to \(size) revisions: \(error)")
        }
    }

    /// Brings the database to the current version; refuses a newer one.
    static func migrate(_ database: SQLiteDatabase) throws(StoreError) {
        do {
            try database.execute("CREATE TABLE IF NOT EXISTS tabula_schema (version INTEGER NOT NULL)")
            let rows = try database.prepare("SELECT MAX(version) FROM tabula_schema").rows()
            let version = Int(rows.first?.first?.integer ?? 0)
            guard version <= currentVersion else {
                throw StoreError(
                    "the database schema is version \(version), but this tabula knows versions up to \(currentVersion); run a newer tabula (or restore a backup)"
                )
            }
            guard version < currentVersion else { return }
            // A migration may replace secrets (version 5 replaces tokens by their digests):
            // what it removes is overwritten with zeros, and the log is copied into the
            // database file and emptied afterwards, so that neither file keeps the old bytes.
            // Later migrations remove no secret, and zeroing what they drop (version 8 drops
            // the whole old log) would write it all again through the log.
            for (index, migration) in migrations.enumerated() where index + 1 > version {
                try database.execute(index + 1 <= lastMigrationRemovingSecrets ? "PRAGMA secure_delete=ON" : "PRAGMA secure_delete=OFF")
                try database.execute("BEGIN IMMEDIATE")
                do {
                    try migration.run(database)
                    try database.execute("INSERT INTO tabula_schema(version) VALUES (\(index + 1))")
                    try database.execute("COMMIT")
                } catch {
                    try? database.execute("ROLLBACK")
                    throw error
                }
            }
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA secure_delete=OFF")
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("cannot migrate the database: \(error)")
        }
    }
}
