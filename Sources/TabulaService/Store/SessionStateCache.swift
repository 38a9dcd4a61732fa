import TabulaCore
import TabulaPlatform

/// Current session states kept in memory in front of a database, each with the watch that
/// vouches for it (see ``SessionWatch``): advanced with each newer state, ended when the
/// state leaves the cache. Updates are monotonic in the revision, so a slow reader can
/// never put back an older state than a writer stored. Bounded: when a shard is full, an
/// eighth of its entries is dropped (they are all in the database).
///
/// Entries are found by token (``SessionKey``), as requests bring them, and also by the
/// token's digest (``TokenDigest``), which is all the database knows of a session that
/// retention or the backend removes.
final class SessionStateCache: Sendable {
    private static let shardCount = 16
    private let entries = ShardedDictionary<SessionKey, WatchedState>(shards: shardCount)
    /// The key of every entry by its token's digest. Taken after a shard of `entries` when
    /// both are.
    private let keysByDigest = Locked<[String: SessionKey]>([:])
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

    /// The entry of the session whose token has this digest, if it is cached.
    func get(digest: String) -> WatchedState? {
        guard let key = keysByDigest.withLock({ $0[digest] }) else { return nil }
        return entries[key]
    }

    func put(_ key: SessionKey, digest: String, _ state: SessionState) {
        entries.withShard(of: key) { entries in
            if let existing = entries[key] {
                guard existing.state.revision <= state.revision else { return }
                entries[key] = WatchedState(state: state, watch: existing.watch)
                existing.watch.advance(to: state.revision)
                return
            }
            var evicted: [SessionKey] = []
            if entries.count >= maxEntriesPerShard {
                evicted = Array(entries.keys.prefix(maxEntriesPerShard / 8))
                for key in evicted { entries.removeValue(forKey: key)?.watch.end() }
            }
            entries[key] = WatchedState(state: state, watch: SessionWatch(revision: state.revision, lastUsed: 0))
            keysByDigest.withLock { keys in
                if !evicted.isEmpty {
                    let gone = Set(evicted)
                    keys = keys.filter { !gone.contains($0.value) }
                }
                keys[digest] = key
            }
        }
    }

    /// Puts a state committed for a session named by its digest alone (a backend's write):
    /// where the session is cached, as ``put(_:digest:_:)`` does; where it is not, a state
    /// a reader is about to put may be older, so the write counts as a removal.
    func put(digest: String, _ state: SessionState) {
        removals.withLock { count in
            if let key = keysByDigest.withLock({ $0[digest] }) {
                put(key, digest: digest, state)
            } else {
                count &+= 1
            }
        }
    }

    /// Forgets the session whose token has this digest.
    func remove(digest: String) {
        removals.withLock { count in
            count &+= 1
            guard let key = keysByDigest.withLock({ $0.removeValue(forKey: digest) }) else { return }
            entries.withShard(of: key) { entries in entries.removeValue(forKey: key)?.watch.end() }
        }
    }

    /// The removal count to pass to ``put(_:digest:_:unlessRemovedSince:)``, taken before
    /// reading the database.
    var removalCount: UInt64 { removals.withLock { $0 } }

    /// Puts a state read from the database, unless a session was removed since `count`.
    func put(_ key: SessionKey, digest: String, _ state: SessionState, unlessRemovedSince count: UInt64) {
        removals.withLock { current in
            guard current == count else { return }
            put(key, digest: digest, state)
        }
    }
}
