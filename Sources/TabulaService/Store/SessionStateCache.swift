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

    /// A cached state, and its token's digest: a cached session's reads and commits find it
    /// here instead of hashing the token again (`Scripts/bench-instructions` with
    /// `BENCH_INSTRUCTIONS_REQUEST=switch BENCH_INSTRUCTIONS_STORE=sqlite` counts the difference).
    private struct Entry: Sendable {
        var watched: WatchedState
        let digest: String
    }

    private let entries = ShardedDictionary<SessionKey, Entry>(shards: shardCount)
    /// The key of every entry by its token's digest (a ``SessionKey`` of the digest's text:
    /// digests are as random as tokens, so its cheap hash is as safe for them). Taken after a
    /// shard of `entries` when both are.
    private let keysByDigest = Locked<[SessionKey: SessionKey]>([:])
    private let maxEntriesPerShard: Int
    /// Counts removals, so that a state read from the database before a session was removed
    /// is not put back after it (the session would then be served from memory).
    private let removals = Locked<UInt64>(0)

    init(maxEntries: Int) {
        maxEntriesPerShard = max(16, maxEntries / Self.shardCount)
    }

    func get(_ key: SessionKey) -> WatchedState? {
        entries[key]?.watched
    }

    /// A cached session's state and its token's digest.
    func getWithDigest(_ key: SessionKey) -> (watched: WatchedState, digest: String)? {
        entries[key].map { ($0.watched, $0.digest) }
    }

    /// The entry of the session whose token has this digest, if it is cached.
    func get(digest: String) -> WatchedState? {
        guard let key = keysByDigest.withLock({ $0[SessionKey(digest)] }) else { return nil }
        return entries[key]?.watched
    }

    func put(_ key: SessionKey, digest: String, _ state: SessionState) {
        entries.withShard(of: key) { entries in
            if let existing = entries[key] {
                guard existing.watched.state.revision <= state.revision else { return }
                entries[key]?.watched = WatchedState(state: state, watch: existing.watched.watch)
                existing.watched.watch.advance(to: state.revision)
                return
            }
            var evicted: [SessionKey] = []
            if entries.count >= maxEntriesPerShard {
                for key in Array(entries.keys.prefix(maxEntriesPerShard / 8)) {
                    guard let entry = entries.removeValue(forKey: key) else { continue }
                    entry.watched.watch.end()
                    evicted.append(SessionKey(entry.digest))
                }
            }
            let digestKey = SessionKey(digest)
            entries[key] = Entry(watched: WatchedState(state: state, watch: SessionWatch(revision: state.revision, lastUsed: 0)), digest: digest)
            keysByDigest.withLock { keys in
                for digest in evicted { keys.removeValue(forKey: digest) }
                keys[digestKey] = key
            }
        }
    }

    /// Puts a state committed for a session named by its digest alone (a backend's write):
    /// where the session is cached, as ``put(_:digest:_:)`` does; where it is not, a state
    /// a reader is about to put may be older, so the write counts as a removal.
    func put(digest: String, _ state: SessionState) {
        removals.withLock { count in
            if let key = keysByDigest.withLock({ $0[SessionKey(digest)] }) {
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
            guard let key = keysByDigest.withLock({ $0.removeValue(forKey: SessionKey(digest)) }) else { return }
            entries.withShard(of: key) { entries in entries.removeValue(forKey: key)?.watched.watch.end() }
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
