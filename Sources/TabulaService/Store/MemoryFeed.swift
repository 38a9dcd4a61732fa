import TabulaPlatform

/// The memory store's feed: entries in the order they were appended, which the store does
/// under the changed session's lock, so that a session's entries are in revision order.
/// It keeps at most `capacity` entries besides the retention: memory is the limit here,
/// and a reader that fell behind the oldest entry kept is told so (410), as after
/// retention.
final class MemoryFeed: Sendable {
    private struct Entries {
        var entries: [FeedEntry] = []
        /// Entries before this position were removed (compacted away now and then).
        var head = 0
        var lastCursor: UInt64 = 0
        /// The cursor of the newest entry removed.
        var pruned = FeedCursor.start
    }

    private let state = Locked(Entries())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func append(sessionID: String, subject: String?, revision: Int, record: FeedRecord, time: Milliseconds) {
        state.withLock { state in
            state.lastCursor += 1
            state.entries.append(
                FeedEntry(
                    cursor: FeedCursor(low: state.lastCursor), sessionID: sessionID, subject: subject, revision: revision, record: record,
                    time: time))
            if state.entries.count - state.head > capacity { Self.removeFirst(1, &state) }
        }
    }

    func read(after: FeedCursor?, limit: Int) -> FeedPage {
        state.withLock { state in
            FeedPage.read(after: after, pruned: state.pruned, newest: FeedCursor(low: state.lastCursor)) { from in
                // Cursors are consecutive from the head on, and `from` is at most the newest:
                // the first entry after it is found by arithmetic.
                let firstCursor = state.lastCursor - UInt64(state.entries.count - state.head) + 1
                let start = state.head + (from.low >= firstCursor ? Int(from.low - firstCursor) + 1 : 0)
                return Array(state.entries[start..<min(state.entries.count, start + max(0, limit))])
            }
        }
    }

    /// Removes the entries older than `cutoff`.
    func removeOlder(than cutoff: Milliseconds) {
        state.withLock { state in
            var count = 0
            while state.head + count < state.entries.count, state.entries[state.head + count].time < cutoff { count += 1 }
            Self.removeFirst(count, &state)
        }
    }

    private static func removeFirst(_ count: Int, _ state: inout Entries) {
        guard count > 0 else { return }
        state.pruned = state.entries[state.head + count - 1].cursor
        state.head += count
        // Compacted once the removed half the array, so that removal stays O(1) amortized.
        if state.head * 2 >= state.entries.count {
            state.entries.removeFirst(state.head)
            state.head = 0
        }
    }
}
