/// What a `datePicker` row shows: a date, a time or both, as text in the mode's format
/// (``DateMode``), or `nil` when none is chosen.
public struct DateInput: Hashable, Sendable {
    public var title: String
    public var mode: DateMode
    public var value: String?
    /// The earliest and latest values the picker offers, in the mode's format.
    public var min: String?
    public var max: String?

    public init(title: String, mode: DateMode, value: String?, min: String? = nil, max: String? = nil) {
        self.title = title
        self.mode = mode
        self.value = value
        self.min = min
        self.max = max
    }

    /// What the picker shows for `value`, which a backend or an expression may have put
    /// anywhere: none for a value not in the mode's format, the nearer bound for one before
    /// `min` or after `max` (bounds in the mode's format), so that sending it back is an
    /// edit the row accepts. A value it accepts already is shown as it is.
    public func shown(_ value: String?) -> String? {
        guard let value, mode.accepts(value) else { return nil }
        if let min, mode.accepts(min), value < min { return min }
        if let max, mode.accepts(max), value > max { return max }
        return value
    }
}

/// What a date picker chooses, and the format its values are written in.
public enum DateMode: String, CaseIterable, Hashable, Sendable {
    /// `"2026-11-28"`
    case date
    /// `"14:30"`
    case time
    /// `"2026-11-28T14:30"`
    case dateTime

    /// Whether `text` is a valid value in this mode: the exact format, a real calendar date
    /// (leap years counted), hours 00–23 and minutes 00–59. Values in one mode order as
    /// text does, so comparing them as strings compares them in time.
    public func accepts(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        switch self {
        case .date: return Self.isDate(bytes[...])
        case .time: return Self.isTime(bytes[...])
        case .dateTime:
            return bytes.count == 16 && bytes[10] == UInt8(ascii: "T") && Self.isDate(bytes[0..<10]) && Self.isTime(bytes[11...])
        }
    }

    private static func isDate(_ bytes: ArraySlice<UInt8>) -> Bool {
        let start = bytes.startIndex
        guard bytes.count == 10, bytes[start + 4] == UInt8(ascii: "-"), bytes[start + 7] == UInt8(ascii: "-"),
            let year = number(bytes[start..<start + 4]), let month = number(bytes[start + 5..<start + 7]),
            let day = number(bytes[start + 8..<start + 10]), (1...12).contains(month), day >= 1
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    private static func isTime(_ bytes: ArraySlice<UInt8>) -> Bool {
        let start = bytes.startIndex
        guard bytes.count == 5, bytes[start + 2] == UInt8(ascii: ":"), let hour = number(bytes[start..<start + 2]),
            let minute = number(bytes[start + 3..<start + 5])
        else { return false }
        return hour < 24 && minute < 60
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }
}

extension DateMode {
    /// A value in this mode's format, for messages.
    public var example: String {
        switch self {
        case .date: "\"2026-11-28\""
        case .time: "\"14:30\""
        case .dateTime: "\"2026-11-28T14:30\""
        }
    }
}
