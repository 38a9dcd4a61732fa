import TabulaCore
import TabulaPostgres

/// Reading back what the store writes: states, revisions of the log and answers; what does
/// not read back is damaged data (SQLSTATE XX001).
extension PostgresSessionStore {
    /// The session's current state.
    func currentState(_ digest: String, _ connection: PostgresConnection) throws(PostgresError) -> SessionState? {
        guard let row = try connection.execute("SELECT revision, state FROM sessions WHERE token_hash = $1", [.text(digest)]).rows.first
        else { return nil }
        guard let revision = row[0].integer else { throw .corrupt("session \(Self.name(digest, connection)): its row has no revision") }
        return try Self.restore(row[1], revision: Int(revision), session: Self.name(digest, connection))
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
