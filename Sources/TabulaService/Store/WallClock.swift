#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock time, for event times and retention.
enum WallClock {
    static func nowMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
