import TabulaHTTP

/// Wall-clock time, for event times and retention.
enum WallClock {
    static func nowMilliseconds() -> Int64 {
        SystemClock.wallNanoseconds() / 1_000_000
    }
}
