/// Durations on the command line: a whole number of seconds, or with a unit: `90s`,
/// `15m`, `24h`, `30d`; at most 100 years (``maxSeconds``), so that stores can work in
/// milliseconds without overflow.
enum DurationText {
    static let maxSeconds = 100 * 365 * 86_400

    static func seconds(_ text: String) -> Int? {
        guard let seconds = unbounded(text), seconds <= maxSeconds else { return nil }
        return seconds
    }

    /// `seconds` as it is best read: in the largest unit that divides it (hours up to two
    /// days, so that a day reads `24h`), as ``seconds(_:)`` reads it back.
    static func text(_ seconds: Int) -> String {
        if seconds > 0 && seconds % 86_400 == 0 && seconds >= 2 * 86_400 { return "\(seconds / 86_400)d" }
        for (unit, size) in [("h", 3600), ("m", 60)] where seconds > 0 && seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }

    private static func unbounded(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let last = text.last else { return nil }
        if let unit = units[last] {
            guard let value = Int(text.dropLast()), value >= 0 else { return nil }
            return value.multipliedReportingOverflow(by: unit).overflow ? nil : value * unit
        }
        guard let value = Int(text), value >= 0 else { return nil }
        return value
    }
}
