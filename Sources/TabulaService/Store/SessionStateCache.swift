import TabulaCore
import TabulaHTTP

/// Current session states kept in memory in front of a database. Updates are monotonic in
/// the revision, so a slow reader can never put back an older state than a writer stored.
/// Bounded: when full, an eighth of the entries is dropped (they are all in the database).
final class SessionStateCache: Sendable {
    private let entries = Locked<[String: SessionState]>([:])
    private let maxEntries: Int

    init(maxEntries: Int) {
        self.maxEntries = max(16, maxEntries)
    }

    func get(_ token: String) -> SessionState? {
        entries.withLock { $0[token] }
    }

    func put(_ token: String, _ state: SessionState) {
        entries.withLock { entries in
            if let existing = entries[token], existing.revision > state.revision { return }
            if entries[token] == nil && entries.count >= maxEntries {
                for key in entries.keys.prefix(maxEntries / 8) { entries[key] = nil }
            }
            entries[token] = state
        }
    }

    func remove(_ token: String) {
        entries.withLock { $0[token] = nil }
    }
}
