import TabulaCore
import TabulaPlatform

/// Current session states kept in memory in front of a database, each with the watch that
/// vouches for it (see ``SessionWatch``): advanced with each newer state, ended when the
/// state leaves the cache. Updates are monotonic in the revision, so a slow reader can
/// never put back an older state than a writer stored. Bounded: when a shard is full, an
/// eighth of its entries is dropped (they are all in the database).
final class SessionStateCache: Sendable {
    private static let shardCount = 16
    private let entries = ShardedDictionary<SessionKey, WatchedState>(shards: shardCount)
    private let maxEntriesPerShard: Int
    /// Counts removals, so that a state read from the database before a session was removed
    /// is not put back after it (the session would then be served from memory).
    private let removals = Locked<UInt64>(0)

    init(maxEntries: Int) {
        maxEntriesPerShard = max(16, maxEntries / Self.shardCount)
    }

    func get(_ key: SessionKey) -> WatchedState? {
        entries[key]
    }

    func put(_ token: String, _ state: SessionState) {
        let key = SessionKey(token)
        entries.withShard(of: key) { entries in
            if let existing = entries[key] {
                guard existing.state.revision <= state.revision else { return }
                entries[key] = WatchedState(state: state, watch: existing.watch)
                existing.watch.advance(to: state.revision)
                return
            }
            if entries.count >= maxEntriesPerShard {
                for key in Array(entries.keys.prefix(maxEntriesPerShard / 8)) { entries.removeValue(forKey: key)?.watch.end() }
            }
            entries[key] = WatchedState(state: state, watch: SessionWatch(revision: state.revision, lastUsed: 0))
        }
    }

    func remove(_ token: String) {
        removals.withLock { count in
            count &+= 1
            let key = SessionKey(token)
            entries.withShard(of: key) { entries in entries.removeValue(forKey: key)?.watch.end() }
        }
    }

    /// The removal count to pass to ``put(_:_:unlessRemovedSince:)``, taken before reading
    /// the database.
    var removalCount: UInt64 { removals.withLock { $0 } }

    /// Puts a state read from the database, unless a session was removed since `count`.
    func put(_ token: String, _ state: SessionState, unlessRemovedSince count: UInt64) {
        removals.withLock { current in
            guard current == count else { return }
            put(token, state)
        }
    }
}
