import TabulaPlatform

/// The memory store's feed: entries in the order they were appended, which the store does
/// under the changed session's lock, so that a session's entries are in revision order.
/// It keeps at most `capacity` entries besides the retention: memory is the limit here,
/// and a reader that fell behind the oldest entry kept is told so (410), as after
/// retention.
///
/// A ring: each entry appended to a full feed takes the oldest one's place, and that one is
/// freed outside the lock, so that no append holds the lock while a batch of old entries is
/// moved or freed, and no event waits behind one that does.
final class MemoryFeed: Sendable {
    private struct Entries {
        var entries: RingBuffer<FeedEntry>
        var lastCursor: UInt64 = 0
        /// The cursor of the newest entry removed.
        var pruned: FeedCursor
    }

    private let state: Locked<Entries>
    let capacity: Int
    /// The high half of this feed's entries' cursors, drawn for each run: a cursor with
    /// another (from before a restart, whose feed began again) is expired (410), rather than
    /// taken for a place in this feed and its first entries skipped. The place before every
    /// entry stays ``FeedCursor/start``, whatever the run.
    private let run: UInt64

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        let run = UInt64.random(in: 1 << 32...1 << 48)
        self.run = run
        state = Locked(Entries(entries: RingBuffer(capacity: self.capacity), pruned: .start))
    }

    func append(sessionID: String, subject: String?, revision: Int, record: FeedRecord, time: Milliseconds) {
        // The dropped entry is freed when this returns, outside the lock.
        _ = state.withLock { state -> FeedEntry? in
            state.lastCursor += 1
            let entry = FeedEntry(
                cursor: FeedCursor(high: run, low: state.lastCursor), sessionID: sessionID, subject: subject, revision: revision, record: record,
                time: time)
            guard let dropped = state.entries.append(entry) else { return nil }
            state.pruned = dropped.cursor
            return dropped
        }
    }

    func read(after: FeedCursor?, limit: Int) -> FeedPage {
        state.withLock { state in
            if let after, after.high != run, after != .start { return .expired(oldest: state.pruned) }
            return FeedPage.read(after: after, pruned: state.pruned, newest: FeedCursor(high: run, low: state.lastCursor)) { from in
                // Cursors are consecutive from the oldest entry on, and `from` is at most the
                // newest: the first entry after it is found by arithmetic.
                let firstCursor = state.lastCursor - UInt64(state.entries.count) + 1
                let start = from.low >= firstCursor ? Int(from.low - firstCursor) + 1 : 0
                return (start..<min(state.entries.count, start + max(0, limit))).compactMap { state.entries.element(at: $0) }
            }
        }
    }

    /// Removes the entries older than `cutoff`.
    func removeOlder(than cutoff: Milliseconds) {
        // The removed entries are freed when this returns, outside the lock.
        _ = state.withLock { state -> [FeedEntry] in
            var removed: [FeedEntry] = []
            while let oldest = state.entries.first, oldest.time < cutoff, let entry = state.entries.removeFirst() {
                state.pruned = entry.cursor
                removed.append(entry)
            }
            return removed
        }
    }
}
