/// Bounds on one session's state, so that no sequence of events can make it grow without
/// limit (a `set` whose template repeats a key doubles a string each time).
public struct StateLimits: Hashable, Sendable {
    /// The state's size, measured as ``StateLimits/measuredBytes(_:)-(SessionState)``.
    public var maxStateBytes: Int
    /// Records in any one list.
    public var maxListLength: Int

    public init(maxStateBytes: Int = 64 * 1024, maxListLength: Int = 1_000) {
        self.maxStateBytes = maxStateBytes
        self.maxListLength = maxListLength
    }

    /// How a state breaks the limits.
    public enum Violation: Error, Hashable, Sendable {
        case stateTooLarge(bytes: Int, limit: Int)
        case listTooLong(key: String, count: Int, limit: Int)
    }

    /// The first limit `state` breaks, or `nil`.
    public func violation(of state: SessionState) -> Violation? {
        violation(of: state) { _, records in Self.measuredBytes(records) }
    }

    /// ``violation(of:)``, taking each list's share of the size from `listBytes(key, records)`,
    /// which must answer ``measuredBytes(_:)-([Record])`` of the records: a caller that
    /// remembers the sizes of lists it measured before answers without walking them again.
    public func violation(of state: SessionState, measuringLists listBytes: (String, [Record]) -> Int) -> Violation? {
        for (key, value) in state.values {
            if case .list(let records) = value, records.count > maxListLength {
                return .listTooLong(key: key, count: records.count, limit: maxListLength)
            }
        }
        let bytes = Self.measuredBytes(state, list: listBytes)
        return bytes > maxStateBytes ? .stateTooLarge(bytes: bytes, limit: maxStateBytes) : nil
    }

    /// The size of the state's values as JSON, without string escapes: keys, strings and
    /// ids by their UTF-8 bytes plus quotes and separators, numbers at most 24 bytes. The
    /// messages a backend put on rows count too, each with its row's key: the session keeps
    /// them with its values, so a backend's answer cannot make a state larger than the limit
    /// by its errors. Cheap enough to run on every event.
    public static func measuredBytes(_ state: SessionState) -> Int {
        measuredBytes(state) { _, records in measuredBytes(records) }
    }

    private static func measuredBytes(_ state: SessionState, list: (String, [Record]) -> Int) -> Int {
        var total = 2
        for (key, value) in state.values { total += measuredBytes(key: key, value: value, list: list) }
        for (row, message) in state.marks.backendErrors { total += row.utf8.count + message.utf8.count + 6 }
        return total
    }

    /// One key's share of ``measuredBytes(_:)-(SessionState)``: the state of this key alone
    /// measures two bytes more (its braces).
    public static func measuredBytes(key: String, value: StateValue) -> Int {
        measuredBytes(key: key, value: value) { _, records in measuredBytes(records) }
    }

    private static func measuredBytes(key: String, value: StateValue, list: (String, [Record]) -> Int) -> Int {
        switch value {
        case .scalar(let field): key.utf8.count + 4 + bytes(of: field)
        case .list(let records): key.utf8.count + 4 + list(key, records)
        }
    }

    /// A list's share of ``measuredBytes(_:)-(SessionState)``: its brackets and its records.
    public static func measuredBytes(_ records: [Record]) -> Int {
        var total = 2
        for record in records {
            total += record.id.utf8.count + 12
            for (name, field) in record.fields { total += name.utf8.count + 4 + bytes(of: field) }
        }
        return total
    }

    private static func bytes(of field: FieldValue) -> Int {
        switch field {
        case .string(let text): text.utf8.count + 2
        case .number: 24
        case .bool: 5
        }
    }
}
