/// Exponential backoff with jitter: each wait doubles from `initial` up to `maximum`, and is
/// drawn between three quarters of that and all of it, so that clients cut off together do not
/// come back together.
struct Backoff: Sendable {
    var initial: Duration
    var maximum: Duration
    private var attempt = 0

    init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The next wait.
    mutating func next() -> Duration {
        // Doubled step by step up to the maximum, never past it: an initial wait as long as
        // a stream's `retry:` may ask must not overflow.
        var ceiling = min(initial, maximum)
        for _ in 0..<min(attempt, 64) where ceiling < maximum {
            ceiling = ceiling > maximum / 2 ? maximum : ceiling * 2
        }
        attempt += 1
        return ceiling * Double.random(in: 0.75...1)
    }

    /// The next wait, at least as long as `notBefore` (an answer's `Retry-After`) but never
    /// past the maximum: a service that asks for an hour must not stall the app that long.
    /// Drawn within a quarter above what the service asked (or, when it asks for the
    /// maximum or more, as the longest backoff is), so that clients refused together do not
    /// come back together.
    mutating func next(notBefore: Duration?) -> Duration {
        let backoff = next()
        guard let notBefore, notBefore > .zero else { return backoff }
        if notBefore >= maximum { return maximum * Double.random(in: 0.75...1) }
        return min(max(backoff, notBefore * Double.random(in: 1...1.25)), maximum)
    }

    /// Starts again from `initial`: after a connection that worked.
    mutating func reset() {
        attempt = 0
    }
}
