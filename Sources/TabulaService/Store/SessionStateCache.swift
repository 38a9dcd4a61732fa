import TabulaCore
import TabulaPlatform

/// Current session states kept in memory in front of a database, each with the watch that
/// vouches for it (see ``SessionWatch``): advanced with each newer state, ended when the
/// state leaves the cache. Updates are monotonic in the revision, so a slow reader can
/// never put back an older state than a writer stored. Bounded by bytes, not entries (a
/// few sessions with large states or client contexts must not hold gigabytes): each entry
/// counts its state as the state limits measure it, plus ``entryOverhead``; when a shard
/// is over its share, entries are dropped until it is at seven eighths of it (they are all
/// in the database).
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
        var bytes: Int
    }

    /// One shard's entries and the bytes they count.
    private struct Shard {
        var entries: [SessionKey: Entry] = [:]
        var bytes = 0
    }

    /// What an entry counts besides its state: its keys, watch and the dictionaries' slots.
    static let entryOverhead = 256

    private let shards = ShardedStorage<Shard>(count: shardCount) { Shard() }
    /// The key of every entry by its token's digest (a ``SessionKey`` of the digest's text:
    /// digests are as random as tokens, so its cheap hash is as safe for them). Taken after a
    /// shard of `entries` when both are.
    private let keysByDigest = Locked<[SessionKey: SessionKey]>([:])
    private let maxBytesPerShard: Int
    /// Counts the states dropped to keep the bound.
    private let limitCounts: LimitCounts
    /// Counts removals, so that a state read from the database before a session was removed
    /// is not put back after it (the session would then be served from memory).
    private let removals = Locked<UInt64>(0)
    /// Counts the puts that dropped entries to keep the bound, for the same reason: a state
    /// read before a newer one was put and then dropped is not put back after it (a commit
    /// would then be checked against the older revision, and the session served from it).
    /// Changed under the shard's lock, and read there by a reader's put.
    private let evictions = Locked<UInt64>(0)

    /// When a reader took its count: the removals and the evictions so far.
    struct ReadMark: Equatable, Sendable {
        let removals: UInt64
        let evictions: UInt64
    }

    /// A cache of at most `maxBytes` (``StoreSettings/stateCacheBytes``), counting what it
    /// drops in `limitCounts`.
    init(maxBytes: Int, limitCounts: LimitCounts = LimitCounts()) {
        maxBytesPerShard = max(16 * Self.entryOverhead, maxBytes / Self.shardCount)
        self.limitCounts = limitCounts
    }

    func get(_ key: SessionKey) -> WatchedState? {
        shards.read(key.shardHash) { $0.entries[key]?.watched }
    }

    /// A cached session's state and its token's digest.
    func getWithDigest(_ key: SessionKey) -> (watched: WatchedState, digest: String)? {
        shards.read(key.shardHash) { $0.entries[key].map { ($0.watched, $0.digest) } }
    }

    /// The entry of the session whose token has this digest, if it is cached.
    func get(digest: String) -> WatchedState? {
        guard let key = keysByDigest.withLock({ $0[SessionKey(digest)] }) else { return nil }
        return get(key)
    }

    /// The bytes the cached entries count, for metrics.
    var bytes: Int {
        var total = 0
        shards.readEach { total += $0.bytes }
        return total
    }

    /// What an entry of `state` counts.
    static func bytes(of state: SessionState) -> Int {
        StateLimits.measuredBytes(state) + (state.client == .unspecified ? 0 : state.client.json.canonicalBytes.count) + entryOverhead
    }

    func put(_ key: SessionKey, digest: String, _ state: SessionState) {
        put(key, digest: digest, state, unlessEvictedSince: nil)
    }

    private func put(_ key: SessionKey, digest: String, _ state: SessionState, unlessEvictedSince evicted: UInt64?) {
        let size = Self.bytes(of: state)
        shards.write(key.shardHash) { shard in
            if let evicted, evictions.withLock({ $0 }) != evicted { return }
            if let existing = shard.entries[key] {
                guard existing.watched.state.revision <= state.revision else { return }
                shard.entries[key]?.watched = WatchedState(state: state, watch: existing.watched.watch)
                shard.entries[key]?.bytes = size
                shard.bytes += size - existing.bytes
                existing.watched.watch.advance(to: state.revision)
                return
            }
            let digestKey = SessionKey(digest)
            shard.entries[key] = Entry(
                watched: WatchedState(state: state, watch: SessionWatch(revision: state.revision, lastUsed: 0)), digest: digest, bytes: size)
            shard.bytes += size
            var evicted: [SessionKey] = []
            if shard.bytes > maxBytesPerShard {
                // Dictionary order is as good as any: the cache has no notion of age, and
                // every state is in the database.
                let target = maxBytesPerShard / 8 * 7
                for candidate in Array(shard.entries.keys) where shard.bytes > target && candidate != key {
                    guard let entry = shard.entries.removeValue(forKey: candidate) else { continue }
                    shard.bytes -= entry.bytes
                    entry.watched.watch.end()
                    evicted.append(SessionKey(entry.digest))
                }
                limitCounts.add(.stateCacheBytes, evicted.count)
                if !evicted.isEmpty { evictions.withLock { $0 &+= 1 } }
            }
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
            shards.write(key.shardHash) { shard in
                guard let entry = shard.entries.removeValue(forKey: key) else { return }
                shard.bytes -= entry.bytes
                entry.watched.watch.end()
            }
        }
    }

    /// The mark to pass to ``put(_:digest:_:unlessRemovedSince:)``, taken before reading
    /// the database.
    var removalCount: ReadMark {
        removals.withLock { removed in ReadMark(removals: removed, evictions: evictions.withLock { $0 }) }
    }

    /// Puts a state read from the database, unless a session was removed, or an entry
    /// dropped to keep the bound, since `mark`: either may have been of a newer state of
    /// this session. (A miss costs a read; a state older than the database's, a session.)
    func put(_ key: SessionKey, digest: String, _ state: SessionState, unlessRemovedSince mark: ReadMark) {
        removals.withLock { current in
            guard current == mark.removals else { return }
            put(key, digest: digest, state, unlessEvictedSince: mark.evictions)
        }
    }
}
