import TabulaPlatform

/// Remembers when each session's last-use time was last written, so that reads refresh it
/// at most once per interval instead of writing on every request. Sharded like the session
/// maps, and checked under a shared lock first: every cached read passes here, and one
/// mutex made the HTTP threads take turns on every request.
final class TouchTracker: Sendable {
    /// How stale a written last-use time may get: an hour, or a tenth of the session TTL
    /// when that is shorter, so that a session only read is never taken for idle.
    let interval: Milliseconds
    private static let shards = 16
    /// Past this many sessions a shard forgets them all (each is then written once more).
    private static let maxPerShard = 200_000 / shards
    private let touched = ShardedDictionary<SessionKey, Milliseconds>(shards: shards)

    init(sessionTTLSeconds: Int) {
        // A tenth of the TTL in milliseconds is 100 per second; 36,000 s of TTL give the hour.
        interval = Milliseconds(min(max(sessionTTLSeconds, 1), 36_000)) * 100
    }

    /// Whether the session's last-use time is due to be written at `time` (and records it).
    func isDue(_ key: SessionKey, at time: Milliseconds) -> Bool {
        if let last = touched[key], time - last < interval { return false }
        return touched.withShard(of: key) { touched in
            if let last = touched[key], time - last < interval { return false }
            if touched.count > Self.maxPerShard { touched.removeAll() }
            touched[key] = time
            return true
        }
    }
}
