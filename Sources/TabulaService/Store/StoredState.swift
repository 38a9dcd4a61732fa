import TabulaCore

/// Reading back what the durable stores write: a session's state as its values' JSON
/// (``SessionState/valuesBytes``), and an event's stored answer. What does not read back
/// as something they write is damaged, and is an error: never a default state, never an
/// answer made up of what could be read.
enum StoredState {
    /// The state stored for `revision`.
    static func decode(_ bytes: [UInt8]?, revision: Int) throws(StoredStateError) -> SessionState {
        guard let bytes else { throw StoredStateError("the state stored for revision \(revision) is missing") }
        let json: JSONValue
        do {
            json = try JSONParser().parse(bytes)
        } catch {
            throw StoredStateError("the state stored for revision \(revision) is not JSON (\(error))")
        }
        do throws(StateDecodingError) {
            return try SessionState(storedValues: json, revision: revision)
        } catch {
            throw StoredStateError("the state stored for revision \(revision) does not decode (\(error))")
        }
    }
}

/// Why a stored state does not read back.
struct StoredStateError: Error, Sendable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension StoredAnswer {
    /// An answer as a store's columns hold it; `nil` when they are not what the store
    /// writes (a missing fingerprint or body, a status that is not an HTTP status).
    init?(fingerprint: [UInt8]?, status: Int64?, body: [UInt8]?, time: Int64) {
        guard let fingerprint, let body, let status, (100...599).contains(status) else { return nil }
        self.init(fingerprint: fingerprint, status: Int(status), body: body, time: time)
    }
}
