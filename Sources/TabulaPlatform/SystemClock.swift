/// The system's clocks as whole nanoseconds: for the quick path's request durations, one
/// `clock_gettime` without `ContinuousClock.now`'s conversions, and a difference that needs
/// no 128-bit `Duration`.
public enum SystemClock {
    /// `CLOCK_MONOTONIC`: for durations.
    public static func monotonicNanoseconds() -> Int64 {
        nanoseconds(CLOCK_MONOTONIC)
    }

    /// `CLOCK_REALTIME_COARSE`: since the Unix epoch, as of the kernel's last tick (a few
    /// milliseconds behind at most), a read of the kernel's last value rather than of the
    /// clock: for log timestamps and last-use times, read on every request.
    public static func coarseWallNanoseconds() -> Int64 {
        nanoseconds(CLOCK_REALTIME_COARSE)
    }

    private static func nanoseconds(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    }
}
