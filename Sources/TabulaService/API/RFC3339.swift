import TabulaPlatform

/// Times in answers: RFC 3339 in UTC with milliseconds, `2026-11-27T08:30:00.123Z`.
enum RFC3339 {
    static func text(_ milliseconds: Milliseconds) -> String {
        let second = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let millisecond = Int(milliseconds - second * 1000)
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(Int(parts.tm_year) + 1900, 4))-\(padded(Int(parts.tm_mon) + 1, 2))-\(padded(Int(parts.tm_mday), 2))"
            + "T\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2)).\(padded(millisecond, 3))Z"
    }
}
