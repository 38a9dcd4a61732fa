import TabulaCore

/// Reading back what the durable stores write: a session's state as its values' JSON
/// (``SessionState/valuesBytes``), and an event's stored answer. What does not read back
/// as something they write is damaged, and is an error: never a default state, never an
/// answer made up of what could be read.
enum StoredState {
    /// The state stored for `revision`.
    static func decode(_ bytes: [UInt8]?, revision: Int) throws(StoredStateError) -> SessionState {
        // A revision below 0, or one the next event could not count past, is damage: taken
        // as a state, its next commit would overflow.
        guard revision >= 0, revision < Int.max else { throw StoredStateError("the revision \(revision) is out of range") }
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
    /// writes (a missing fingerprint or body, a status that is not an HTTP status, a body
    /// that is not a JSON object). Read only for a retry, so checking it costs little.
    init?(fingerprint: [UInt8]?, status: Int64?, body: [UInt8]?, time: Int64) {
        guard let fingerprint, let body, let status, (100...599).contains(status), case .object? = try? JSONParser().parse(body) else {
            return nil
        }
        self.init(fingerprint: fingerprint, status: Int(status), body: body, time: time)
    }
}

extension FeedRecord {
    /// Whether a feed entry's columns as a store holds them are what the feed writes:
    /// `changedKeys` a JSON array of strings, `event` a JSON object or nothing. The feed
    /// writes them into its answers as they are, so what fails is damaged.
    static func readsBack(event: [UInt8]?, changedKeys: [UInt8]) -> Bool {
        guard case .array(let keys)? = try? JSONParser().parse(changedKeys), keys.allSatisfy({ $0.stringValue != nil }) else { return false }
        guard let event else { return true }
        if case .object? = try? JSONParser().parse(event) { return true }
        return false
    }
}
