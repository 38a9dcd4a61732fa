import TabulaHTTP

/// Remembers when each session's last-use time was last written, so that reads refresh it
/// at most once per interval instead of writing on every request. Sharded like the session
/// maps, and checked under a shared lock first: every cached read passes here, and one
/// mutex made the HTTP threads take turns on every request.
final class TouchTracker: Sendable {
    static let interval: Milliseconds = 60 * 60 * 1000
    private static let shards = 16
    /// Past this many sessions a shard forgets them all (each is then written once more).
    private static let maxPerShard = 200_000 / shards
    private let touched = ShardedDictionary<SessionKey, Milliseconds>(shards: shards)

    /// Whether the session's last-use time is due to be written at `time` (and records it).
    func isDue(_ key: SessionKey, at time: Milliseconds) -> Bool {
        if let last = touched[key], time - last < Self.interval { return false }
        return touched.withShard(of: key) { touched in
            if let last = touched[key], time - last < Self.interval { return false }
            if touched.count > Self.maxPerShard { touched.removeAll() }
            touched[key] = time
            return true
        }
    }
}
