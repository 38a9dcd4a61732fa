import TabulaHTTP

/// Remembers when each session's last-use time was last written, so that reads refresh it
/// at most once per interval instead of writing on every request.
final class TouchTracker: Sendable {
    static let interval: Milliseconds = 60 * 60 * 1000
    private let touched = Locked<[String: Milliseconds]>([:])

    /// Whether the session's last-use time is due to be written at `time` (and records it).
    func isDue(_ token: String, at time: Milliseconds) -> Bool {
        touched.withLock { touched in
            if let last = touched[token], time - last < Self.interval { return false }
            if touched.count > 200_000 { touched.removeAll() }
            touched[token] = time
            return true
        }
    }
}
