/// When a screen's stream connects again: after the stream's `retry:`, the wait doubling with
/// each connection that failed (with jitter, up to the maximum). A connection that worked, one
/// that delivered an event or stayed open for a heartbeat, starts from `retry:` again: a quiet
/// stream that a proxy or a network change cut after a while is no failure, and the next
/// connection should not wait longer for it.
struct StreamReconnection: Sendable {
    /// The shortest wait, whatever a `retry:` says: `retry: 0` would reconnect at once, forever.
    static let shortestRetry = Duration.milliseconds(250)
    /// The wait before the stream names its own.
    static let firstRetry = Duration.seconds(3)

    private var backoff: Backoff
    private let heartbeat: Duration

    init(maximum: Duration, heartbeat: Duration) {
        backoff = Backoff(initial: Self.firstRetry, maximum: maximum)
        self.heartbeat = heartbeat
    }

    /// The stream's `retry:`, in milliseconds.
    mutating func retry(milliseconds: Int) {
        backoff.initial = max(.milliseconds(milliseconds), Self.shortestRetry)
    }

    /// The wait after a connection that was open for `open` (zero when it never opened) and
    /// delivered an event or not; at least `notBefore` (a refusal's `Retry-After`), up to
    /// the maximum.
    mutating func wait(afterOpenFor open: Duration, delivered: Bool, notBefore: Duration? = nil) -> Duration {
        if delivered || open >= heartbeat { backoff.reset() }
        return backoff.next(notBefore: notBefore)
    }
}
