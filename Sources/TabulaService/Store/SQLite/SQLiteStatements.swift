import TabulaCore
import TabulaPlatform
import TabulaSQLite

/// The prepared statements of one connection, and the session operations built on them.
final class SQLiteStatements: @unchecked Sendable {
    let database: SQLiteDatabase
    /// Slots of each session's log: revision `r` lives in slot `r % ringSize`.
    let ringSize: Int
    private let selectNewestSlot: SQLiteStatement
    private let selectSlot: SQLiteStatement
    private let insertSession: SQLiteStatement
    private let selectSessionByID: SQLiteStatement
    private let selectDigestByID: SQLiteStatement
    private let selectIDByDigest: SQLiteStatement
    private let touchSession: SQLiteStatement
    private let insertEvent: SQLiteStatement
    private let overwriteEvent: SQLiteStatement
    private let selectOldestRevision: SQLiteStatement
    private let selectAnswer: SQLiteStatement
    private let insertAnswer: SQLiteStatement
    let countSessions: SQLiteStatement
    /// A read of the sessions table's first page: what a health check asks of the database.
    let probe: SQLiteStatement
    let savepoint: SQLiteStatement
    let release: SQLiteStatement
    let rollbackToSavepoint: SQLiteStatement
    private let deleteExpiredAnswers: SQLiteStatement
    private let selectIdleSessions: SQLiteStatement
    private let deleteSessionEvents: SQLiteStatement
    private let deleteSessionAnswers: SQLiteStatement
    private let deleteSession: SQLiteStatement
    private let upsertDefinition: SQLiteStatement
    private let deleteOldDefinitions: SQLiteStatement
    private let selectDefinition: SQLiteStatement
    private let insertFeedEntry: SQLiteStatement
    private let selectFeed: SQLiteStatement
    private let selectFeedPruned: SQLiteStatement
    private let selectFirstFeedEntryAfter: SQLiteStatement
    private let deleteFeedEntries: SQLiteStatement
    private let selectNewestFeedEntry: SQLiteStatement
    private let updateFeedPruned: SQLiteStatement
    private let selectHistorySizes: SQLiteStatement
    private let deleteHistoryBefore: SQLiteStatement
    private let countAnswers: SQLiteStatement
    private let deleteOldAnswers: SQLiteStatement
    private let selectNewestAnswerNumber: SQLiteStatement
    /// The number of the answer stored last (the writer's alone writes them), read from the
    /// database before the first one this process stores.
    private var answerNumber: Int64?
    /// The bounds on each session's history and answers.
    let settings: StoreSettings
    /// Counts the revisions and answers dropped to keep the bounds.
    let limitCounts: LimitCounts
    /// The writer's upper bounds of each session's history bytes and stored answers, so
    /// that their exact sums are read only when a bound passes its limit (see
    /// ``keepWithinBounds(_:addedHistoryBytes:addedAnswers:)``). Only the writer's instance uses it.
    private var bounds: [String: (historyBytes: Int, answers: Int)] = [:]

    init(_ database: SQLiteDatabase, ringSize: Int, settings: StoreSettings = StoreSettings(), limitCounts: LimitCounts = LimitCounts())
        throws(SQLiteError)
    {
        self.database = database
        self.ringSize = ringSize
        self.settings = settings
        self.limitCounts = limitCounts
        // A session's current state is its newest log entry (schema version 2). The newest
        // slot is found first, reading only the small columns, then that one row is read.
        selectNewestSlot = try database.prepare("SELECT slot FROM events WHERE token_hash = ? ORDER BY revision DESC LIMIT 1")
        selectSlot = try database.prepare("SELECT revision, state, time_ms FROM events WHERE token_hash = ? AND slot = ?")
        insertSession = try database.prepare(
            "INSERT INTO sessions(token_hash, id, subject, created_ms, last_used_ms) VALUES (?, ?, ?, ?, ?)")
        selectSessionByID = try database.prepare("SELECT token_hash, subject, created_ms, last_used_ms FROM sessions WHERE id = ?")
        selectDigestByID = try database.prepare("SELECT token_hash FROM sessions WHERE id = ?")
        selectIDByDigest = try database.prepare("SELECT id FROM sessions WHERE token_hash = ?")
        touchSession = try database.prepare("UPDATE sessions SET last_used_ms = ? WHERE token_hash = ? AND last_used_ms < ?")
        // Overwrites the slot's older revision; a slot holding this revision or a newer one
        // means the session moved, and a session without its row was removed: `apply` sees
        // either as no change (a log must never outlive its session).
        insertEvent = try database.prepare(
            """
            INSERT INTO events(token_hash, slot, revision, event_id, kind, payload, state, time_ms)
            SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 WHERE EXISTS (SELECT 1 FROM sessions WHERE token_hash = ?1)
            ON CONFLICT (token_hash, slot) DO UPDATE SET revision = excluded.revision, event_id = excluded.event_id,
                kind = excluded.kind, payload = excluded.payload, state = excluded.state, time_ms = excluded.time_ms
            WHERE events.revision < excluded.revision
            """)
        // Once a session's ring is full, its slot holds an older revision: updating that row
        // in place spares `insertEvent`'s insert attempt turned into an update on conflict.
        // When nothing changes (no such row, a newer revision, no session), `apply` falls
        // back to `insertEvent`, which tells these cases apart.
        overwriteEvent = try database.prepare(
            """
            UPDATE events SET revision = ?3, event_id = ?4, kind = ?5, payload = ?6, state = ?7, time_ms = ?8
            WHERE token_hash = ?1 AND slot = ?2 AND revision < ?3 AND EXISTS (SELECT 1 FROM sessions WHERE token_hash = ?1)
            """)
        selectOldestRevision = try database.prepare("SELECT MIN(revision) FROM events WHERE token_hash = ?")
        selectAnswer = try database.prepare(
            "SELECT fingerprint, status, body, time_ms FROM answers WHERE token_hash = ? AND event_id = ?")
        insertAnswer = try database.prepare(
            "INSERT OR REPLACE INTO answers(token_hash, event_id, fingerprint, status, body, time_ms, seq) VALUES (?, ?, ?, ?, ?, ?, ?)")
        selectNewestAnswerNumber = try database.prepare("SELECT MAX(seq) FROM answers")
        countSessions = try database.prepare("SELECT COUNT(*) FROM sessions")
        probe = try database.prepare("SELECT 1 FROM sessions LIMIT 1")
        savepoint = try database.prepare("SAVEPOINT job")
        release = try database.prepare("RELEASE job")
        rollbackToSavepoint = try database.prepare("ROLLBACK TO job")
        deleteExpiredAnswers = try database.prepare(
            """
            DELETE FROM answers WHERE (token_hash, event_id) IN (
                SELECT token_hash, event_id FROM answers WHERE time_ms < ?1 ORDER BY time_ms LIMIT ?2)
            """)
        selectIdleSessions = try database.prepare("SELECT token_hash FROM sessions WHERE last_used_ms < ? LIMIT ?")
        deleteSessionEvents = try database.prepare("DELETE FROM events WHERE token_hash = ?")
        deleteSessionAnswers = try database.prepare("DELETE FROM answers WHERE token_hash = ?")
        deleteSession = try database.prepare("DELETE FROM sessions WHERE token_hash = ?")
        upsertDefinition = try database.prepare(
            """
            INSERT INTO definitions(id, screen, document, served_ms)
            VALUES (?1, ?2, ?3, max(?4, (SELECT COALESCE(MAX(served_ms), 0) + 1 FROM definitions WHERE screen = ?2)))
            ON CONFLICT (id) DO UPDATE SET served_ms = excluded.served_ms
            """)
        deleteOldDefinitions = try database.prepare(
            """
            DELETE FROM definitions WHERE screen = ?1 AND id NOT IN (
                SELECT id FROM definitions WHERE screen = ?1 ORDER BY served_ms DESC, id LIMIT ?2)
            RETURNING id
            """)
        selectDefinition = try database.prepare("SELECT screen, document FROM definitions WHERE id = ?")
        // The session's id and subject come from its row, in the statement that writes the
        // entry: no entry without its session.
        insertFeedEntry = try database.prepare(
            """
            INSERT INTO feed(session_id, subject, revision, cause, event, changed_keys, time_ms)
            SELECT id, subject, ?2, ?3, ?4, ?5, ?6 FROM sessions WHERE token_hash = ?1
            """)
        selectFeed = try database.prepare(
            "SELECT cursor, session_id, subject, revision, cause, event, changed_keys, time_ms FROM feed WHERE cursor > ? ORDER BY cursor LIMIT ?")
        selectFeedPruned = try database.prepare("SELECT value FROM tabula_settings WHERE name = 'feed_pruned'")
        // Entries are in time order but for clocks that stepped back: retention removes the
        // oldest ones up to the first that is young enough, so that what it removes is always
        // everything up to a cursor.
        selectFirstFeedEntryAfter = try database.prepare(
            "SELECT cursor FROM (SELECT cursor, time_ms FROM feed ORDER BY cursor LIMIT ?2) WHERE time_ms >= ?1 ORDER BY cursor LIMIT 1")
        deleteFeedEntries = try database.prepare("DELETE FROM feed WHERE cursor <= ?")
        selectNewestFeedEntry = try database.prepare("SELECT MAX(cursor) FROM feed")
        updateFeedPruned = try database.prepare("UPDATE tabula_settings SET value = ?1 WHERE name = 'feed_pruned' AND value < ?1")
        selectHistorySizes = try database.prepare(
            "SELECT revision, length(state) + length(payload) FROM events WHERE token_hash = ? ORDER BY revision DESC")
        deleteHistoryBefore = try database.prepare("DELETE FROM events WHERE token_hash = ? AND revision < ?")
        countAnswers = try database.prepare("SELECT COUNT(*) FROM answers WHERE token_hash = ?")
        deleteOldAnswers = try database.prepare(
            """
            DELETE FROM answers WHERE token_hash = ?1 AND event_id IN (
                SELECT event_id FROM answers WHERE token_hash = ?1 ORDER BY seq DESC LIMIT -1 OFFSET ?2)
            """)
    }

    /// Keeps a session's history within ``StoreSettings/maxHistoryBytes`` and its stored
    /// answers within ``StoreSettings/maxAnswersPerSession`` after a commit added to them,
    /// dropping the oldest. The writer keeps an upper bound of each (it alone writes them):
    /// the exact sums are read when a bound passes its limit, or for a session it has not
    /// met since it started. Most commits therefore read nothing more.
    func keepWithinBounds(_ digest: String, addedHistoryBytes: Int, addedAnswers: Int) throws(SQLiteError) {
        if bounds.count > 100_000 { bounds.removeAll(keepingCapacity: true) }
        var bound = bounds[digest] ?? (Int.max, Int.max)
        if bound.historyBytes != Int.max { bound.historyBytes += addedHistoryBytes }
        if bound.answers != Int.max { bound.answers += addedAnswers }
        if bound.historyBytes > settings.maxHistoryBytes {
            let sizes = try selectHistorySizes.rows([.text(digest)]).compactMap { row in
                row[0].integer.map { (revision: $0, bytes: row[1].integer ?? 0) }
            }
            let cut = settings.historyCut(sizes)
            if let keepFrom = cut.keepFrom {
                try deleteHistoryBefore.run([.text(digest), .integer(keepFrom)])
                limitCounts.add(.historyBytes, database.changes)
            }
            bound.historyBytes = Int(cut.keptBytes)
        }
        if bound.answers > settings.maxAnswersPerSession {
            let count = Int(try countAnswers.rows([.text(digest)]).first?.first?.integer ?? 0)
            if count > settings.maxAnswersPerSession {
                try deleteOldAnswers.run([.text(digest), .integer(Int64(settings.maxAnswersPerSession))])
                limitCounts.add(.eventAnswers, database.changes)
            }
            bound.answers = min(count, settings.maxAnswersPerSession)
        }
        bounds[digest] = bound
    }

    /// Forgets the bounds, and the number of the last answer: a rolled-back job may have
    /// counted what is not there.
    func forgetBounds() {
        bounds.removeAll(keepingCapacity: true)
        answerNumber = nil
    }

    /// Writes a change's feed entry, for the session whose token has this digest.
    func appendToFeed(_ digest: String, revision: Int, _ record: FeedRecord, time: Milliseconds) throws(SQLiteError) {
        try insertFeedEntry.run([
            .text(digest), .integer(Int64(revision)), .text(record.cause.rawValue), record.event.map(SQLiteValue.blob) ?? .null,
            .blob(record.changedKeys), .integer(time),
        ])
    }

    /// Reads the feed (see ``FeedPage/read(after:pruned:newest:_:)``), in one read transaction:
    /// retention could otherwise remove entries between reading what it removed and
    /// reading what is left.
    func readFeed(after: FeedCursor?, limit: Int) throws(SQLiteError) -> FeedPage {
        try database.execute("BEGIN")
        do {
            let pruned = FeedCursor(low: UInt64(max(0, try feedPrunedCursor())))
            let newest = FeedCursor(low: UInt64(max(0, try selectNewestFeedEntry.rows().first?.first?.integer ?? 0)))
            let page = try FeedPage.read(after: after, pruned: pruned, newest: newest) { (from) throws(SQLiteError) in
                try selectFeed.rows([.integer(Int64(clamping: from.low)), .integer(Int64(limit))]).map(Self.feedEntry)
            }
            try database.execute("COMMIT")
            return page
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// A feed row; one whose columns are not what the feed writes is damaged, and is an
    /// error rather than left out.
    private static func feedEntry(_ row: [SQLiteValue]) throws(SQLiteError) -> FeedEntry {
        guard let cursor = row[0].integer, cursor >= 0, let sessionID = row[1].text, let revision = row[3].integer,
            let cause = row[4].text.flatMap(FeedRecord.Cause.init(rawValue:)), let time = row[7].integer,
            row[2] == .null || row[2].text != nil, row[5] == .null || row[5].blob != nil, let changedKeys = row[6].blob,
            FeedRecord.readsBack(event: row[5].blob, changedKeys: changedKeys)
        else { throw .corrupt("the feed entry at cursor \(row[0]) does not decode") }
        return FeedEntry(
            cursor: FeedCursor(low: UInt64(cursor)), sessionID: sessionID, subject: row[2].text, revision: Int(revision),
            record: FeedRecord(cause: cause, event: row[5].blob, changedKeys: changedKeys), time: time)
    }

    /// Removes up to `limit` of the oldest feed entries, those older than `cutoff` but never
    /// the newest (see the schema's version 6), and records the newest removed; returns how
    /// many it removed.
    func removeFeedEntries(olderThan cutoff: Milliseconds, limit: Int) throws(SQLiteError) -> Int {
        guard let newest = try selectNewestFeedEntry.rows().first?.first?.integer else { return 0 }
        // Cursors count from 1: a lower one is damage, which retention leaves as it is.
        guard newest >= 1 else { throw .corrupt("the feed's newest entry has the cursor \(newest)") }
        var newestRemoved = newest - 1
        if let keptFrom = try selectFirstFeedEntryAfter.rows([.integer(cutoff), .integer(Int64(limit))]).first?.first?.integer {
            newestRemoved = min(newestRemoved, keptFrom &- 1)
        } else if let last = try selectFeed.rows([.integer(try feedPrunedCursor()), .integer(Int64(limit))]).last?.first?.integer {
            // None of the oldest `limit` is young enough: all of them go.
            newestRemoved = min(newestRemoved, last)
        }
        try deleteFeedEntries.run([.integer(newestRemoved)])
        let removed = database.changes
        if removed > 0 { try updateFeedPruned.run([.integer(newestRemoved)]) }
        return removed
    }

    private func feedPrunedCursor() throws(SQLiteError) -> Int64 {
        try selectFeedPruned.rows().first?.first?.integer ?? 0
    }

    /// Records definitions as served at `time`, then keeps the newest `keep` of each of
    /// their screens; returns the ids of those it removed. A definition served is always
    /// newer than every version of its screen already kept, even within one millisecond or
    /// after the clock stepped back (``SessionStore/keepDefinitions(_:)``).
    func keepDefinitions(_ definitions: [KeptDefinition], time: Milliseconds, keep: Int) throws(SQLiteError) -> [String] {
        for definition in definitions {
            try upsertDefinition.run([.text(definition.id), .text(definition.screen), .blob(definition.document), .integer(time)])
        }
        var removed: [String] = []
        for screen in Set(definitions.map(\.screen)).sorted() {
            removed += try deleteOldDefinitions.rows([.text(screen), .integer(Int64(keep))]).compactMap { $0.first?.text }
        }
        return removed
    }

    func keptDefinition(id: String) throws(SQLiteError) -> KeptDefinition? {
        guard let row = try selectDefinition.rows([.text(id)]).first, let screen = row[0].text else { return nil }
        return KeptDefinition(id: id, screen: screen, document: row[1].blob ?? [])
    }

    /// Deletes answers older than `answerCutoff` and up to `limit` sessions idle since
    /// before `sessionCutoff`, with their log and answers; returns the removed sessions' digests.
    /// Events do not rewrite `last_used_ms` (the log row carries their time), so a session
    /// whose `last_used_ms` is old but whose newest event is recent is kept, and its
    /// `last_used_ms` catches up so that it is not looked at again on every pass.
    func removeExpired(answerCutoff: Milliseconds, sessionCutoff: Milliseconds, limit: Int, time: Milliseconds) throws(SQLiteError) -> [String] {
        try ExpiredAnswers.remove { (limit: Int) throws(SQLiteError) -> Int in
            try deleteExpiredAnswers.run([.integer(answerCutoff), .integer(Int64(limit))])
            return database.changes
        }
        var removed: [String] = []
        var examined = 0
        // Bounded work per pass: sessions still looked at are taken up by the next one.
        while removed.count < limit && examined < limit * 10 {
            let requested = limit - removed.count
            let candidates = try selectIdleSessions.rows([.integer(sessionCutoff), .integer(Int64(requested))])
                .compactMap { $0.first?.text }
            examined += candidates.count
            for digest in candidates {
                if let lastEvent = try newestEntry(digest)?[2].integer, lastEvent >= sessionCutoff {
                    try touch(digest, time: lastEvent, olderThan: lastEvent)
                    continue
                }
                try delete(digest, time: time)
                removed.append(digest)
            }
            if candidates.count < requested { break }
        }
        return removed
    }

    func currentState(_ digest: String) throws(SQLiteError) -> SessionState? {
        guard let row = try newestEntry(digest) else { return nil }
        guard let revision = row[0].integer, revision >= 0 else {
            throw .corrupt("session \(name(digest)): its newest log entry has no revision")
        }
        return try restore(row[1], revision: Int(revision), digest: digest)
    }

    /// The newest log entry of a session: revision, state, time. Outside a transaction (the
    /// reader's connection) the two statements are two reads, and a commit between them may
    /// have cut the slot the first found from the history: the entry is then looked for
    /// again, rather than the session taken for gone.
    private func newestEntry(_ digest: String) throws(SQLiteError) -> [SQLiteValue]? {
        for _ in 0..<8 {
            guard let slot = try selectNewestSlot.rows([.text(digest)]).first?.first else { return nil }
            if let row = try selectSlot.rows([.text(digest), slot]).first { return row }
        }
        throw .busy("session \(name(digest)): its newest log entry kept moving while it was read")
    }

    /// A state as the log holds it (its values' JSON), read without a schema. One that
    /// does not decode is damaged: an error, never a default state.
    func restore(_ value: SQLiteValue, revision: Int, digest: String) throws(SQLiteError) -> SessionState {
        do throws(StoredStateError) {
            return try StoredState.decode(value.blob, revision: revision)
        } catch {
            throw .corrupt("session \(name(digest)): \(error)")
        }
    }

    /// How a damaged session is named in messages and logs: its public id, else the start
    /// of its token's digest (never the token).
    func name(_ digest: String) -> String {
        (try? id(digest: digest)).flatMap { $0 } ?? "with token digest \(digest.prefix(12))…"
    }

    func createSession(_ digest: String, _ session: NewSession, time: Milliseconds) throws(SQLiteError) {
        let bytes = session.state.valuesBytes
        try insertSession.run([.text(digest), .text(session.id), session.subject.map(SQLiteValue.text) ?? .null, .integer(time), .integer(time)])
        try insertEvent.run([
            .text(digest), .integer(0), .integer(0), .null, .text("create"), .blob(Array("{}".utf8)), .blob(bytes), .integer(time),
        ])
        try appendToFeed(digest, revision: session.state.revision, .created(session.state), time: time)
        bounds[digest] = (bytes.count + 2, 0)
    }

    /// The session with this public id: its token's digest, subject, creation and last use
    /// (the later of the recorded read and the newest log entry: events do not rewrite
    /// `last_used_ms`).
    func session(id: String) throws(SQLiteError) -> (digest: String, subject: String?, createdAt: Milliseconds, lastUsedAt: Milliseconds)? {
        guard let row = try selectSessionByID.rows([.text(id)]).first, let digest = row[0].text else { return nil }
        let lastEvent = try newestEntry(digest)?[2].integer ?? 0
        return (digest, row[1].text, row[2].integer ?? 0, max(row[3].integer ?? 0, lastEvent))
    }

    /// The digest of the token of the session with this public id.
    func digest(id: String) throws(SQLiteError) -> String? {
        try selectDigestByID.rows([.text(id)]).first?.first?.text
    }

    /// The public id of the session whose token has this digest.
    func id(digest: String) throws(SQLiteError) -> String? {
        try selectIDByDigest.rows([.text(digest)]).first?.first?.text
    }

    /// Deletes a session with its log and answers, and writes its `deleted` feed entry.
    func delete(_ digest: String, time: Milliseconds) throws(SQLiteError) {
        if let revision = try newestEntry(digest)?[0].integer {
            try appendToFeed(digest, revision: Int(revision), .deleted, time: time)
        }
        try deleteSessionEvents.run([.text(digest)])
        try deleteSessionAnswers.run([.text(digest)])
        try deleteSession.run([.text(digest)])
        bounds[digest] = nil
    }

    /// Writes a commit: its log entry with the state it produced (which makes it the
    /// session's current state, and overwrites the entry `ringSize` revisions older), and
    /// the answer. Returns `false` when the revision moved meanwhile (nothing is written then).
    /// `stateBytes` is the new state's stored form when the caller has it already.
    func apply(_ digest: String, _ commit: SessionCommit, stateBytes: [UInt8]?) throws(SQLiteError) -> Bool {
        var addedHistoryBytes = 0
        if let state = commit.state {
            let revision = state.revision
            let stored = stateBytes ?? state.valuesBytes
            addedHistoryBytes = stored.count + commit.event.payload.count
            let entry: [SQLiteValue] = [
                .text(digest), .integer(Int64(revision % ringSize)), .integer(Int64(revision)), commit.event.eventID.map(SQLiteValue.text) ?? .null,
                .text(commit.event.kind), .blob(commit.event.payload), .blob(stored), .integer(commit.event.time),
            ]
            var written = false
            if revision >= ringSize {
                try overwriteEvent.run(entry)
                written = database.changes == 1
            }
            if !written {
                try insertEvent.run(entry)
                guard database.changes == 1 else { return false }
            }
            if let change = commit.change { try appendToFeed(digest, revision: revision, change.feed, time: commit.event.time) }
        }
        if let answer = commit.answer, let eventID = commit.event.eventID {
            var previous = answerNumber
            if previous == nil { previous = try selectNewestAnswerNumber.rows().first?.first?.integer ?? 0 }
            let number = (previous ?? 0) + 1
            try insertAnswer.run([
                .text(digest), .text(eventID), .blob(answer.fingerprint), .integer(Int64(answer.status)), .blob(answer.body),
                .integer(answer.time), .integer(number),
            ])
            answerNumber = number
        }
        try keepWithinBounds(digest, addedHistoryBytes: addedHistoryBytes, addedAnswers: commit.answer == nil ? 0 : 1)
        return true
    }

    func touch(_ digest: String, time: Milliseconds, olderThan cutoff: Milliseconds) throws(SQLiteError) {
        try touchSession.run([.integer(time), .text(digest), .integer(cutoff)])
    }

    func state(_ digest: String, at revision: Int, current: SessionState) throws(SQLiteError) -> RevisionLookup {
        if revision == current.revision { return .found(current) }
        if revision > current.revision { return .future(current: current.revision) }
        if revision >= 0, let row = try selectSlot.rows([.text(digest), .integer(Int64(revision % ringSize))]).first,
            row[0].integer == Int64(revision)
        {
            return .found(try restore(row[1], revision: revision, digest: digest))
        }
        let oldest = try selectOldestRevision.rows([.text(digest)]).first?.first?.integer.map(Int.init) ?? current.revision
        return .tooOld(oldestKept: oldest)
    }

    func answer(_ digest: String, eventID: String, notBefore cutoff: Milliseconds) throws(SQLiteError) -> StoredAnswer? {
        guard let row = try selectAnswer.rows([.text(digest), .text(eventID)]).first else { return nil }
        guard let time = row[3].integer else { throw .corrupt("session \(name(digest)): a stored answer has no time") }
        guard time >= cutoff else { return nil }
        guard let answer = StoredAnswer(fingerprint: row[0].blob, status: row[1].integer, body: row[2].blob, time: time) else {
            throw .corrupt("session \(name(digest)): the answer stored for an eventId does not decode")
        }
        return answer
    }
}
