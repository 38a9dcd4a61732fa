/// Bounds on one session's state, so that no sequence of events can make it grow without
/// limit (a `set` whose template repeats a key doubles a string each time).
public struct StateLimits: Hashable, Sendable {
    /// The state's size, measured as ``StateLimits/measuredBytes(_:)``.
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
        var memo = ListMemo()
        return violation(of: state, reusing: &memo)
    }

    /// ``violation(of:)``, measuring lists whose storage `memo` remembers by their
    /// remembered size (the service checks the state after every event that changes it).
    public func violation(of state: SessionState, reusing memo: inout ListMemo) -> Violation? {
        for (key, value) in state.values {
            if case .list(let records) = value, records.count > maxListLength {
                return .listTooLong(key: key, count: records.count, limit: maxListLength)
            }
        }
        let bytes = Self.measuredBytes(state) { key, records in memo.measuredBytes(key, records, measure: Self.measuredBytes) }
        return bytes > maxStateBytes ? .stateTooLarge(bytes: bytes, limit: maxStateBytes) : nil
    }

    /// The size of the state's values as JSON, without string escapes: keys, strings and
    /// ids by their UTF-8 bytes plus quotes and separators, numbers at most 24 bytes.
    /// Cheap enough to run on every event.
    public static func measuredBytes(_ state: SessionState) -> Int {
        measuredBytes(state) { _, records in measuredBytes(records) }
    }

    private static func measuredBytes(_ state: SessionState, list: (String, [Record]) -> Int) -> Int {
        var total = 2
        for (key, value) in state.values {
            total += key.utf8.count + 4
            switch value {
            case .scalar(let field): total += bytes(of: field)
            case .list(let records): total += list(key, records)
            }
        }
        return total
    }

    /// A list's share of ``measuredBytes(_:)``: its brackets and its records.
    private static func measuredBytes(_ records: [Record]) -> Int {
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
