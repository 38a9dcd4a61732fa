#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The system's clocks as whole nanoseconds: for the quick path's request durations, a
/// third of the instructions of `ContinuousClock.now`, and a difference that needs no
/// 128-bit `Duration`.
public enum SystemClock {
    /// `CLOCK_MONOTONIC`: for durations.
    public static func monotonicNanoseconds() -> Int64 {
        nanoseconds(CLOCK_MONOTONIC)
    }

    /// `CLOCK_REALTIME`: since the Unix epoch.
    public static func wallNanoseconds() -> Int64 {
        nanoseconds(CLOCK_REALTIME)
    }

    private static func nanoseconds(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    }
}
