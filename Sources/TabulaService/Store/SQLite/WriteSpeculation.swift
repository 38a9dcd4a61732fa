import TabulaCore
import TabulaSQLite

/// A write body already run outside the writer, against the session as the cache knew it.
/// Its result stands when nothing the body read has changed since: the session is at the
/// same revision (every state change bumps it) and, when the result commits an event id,
/// no answer for that id has been stored meanwhile (answers may be stored without a new
/// revision). Otherwise the writer runs the body again on the current state.
struct WriteSpeculation<Value: Sendable>: Sendable {
    let base: SessionState
    let value: Value
    let writing: SessionWriting
    /// The committed state's stored form, encoded here rather than on the writer thread.
    let stateBytes: [UInt8]?

    func holds(on current: SessionState, statements: SQLiteStatements, token: String, answerCutoff: Milliseconds) throws(SQLiteError) -> Bool {
        guard current.revision == base.revision else { return false }
        guard let eventID = writing.commit?.event.eventID else { return true }
        return try statements.answer(token, eventID: eventID, notBefore: answerCutoff) == nil
    }
}
