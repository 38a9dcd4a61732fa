import TabulaCore

/// What one committed change of a session adds to the feed, as the service describes it;
/// the store adds the session's id and subject, the time and the entry's cursor, in the
/// transaction that commits the change.
public struct FeedRecord: Sendable, Equatable {
    public enum Cause: String, Sendable, CaseIterable {
        case created, event, patch, client, deleted
    }

    public var cause: Cause
    /// For a client's event: the event as the feed shows it, a JSON object
    /// (`{"eventId"?, "isOn"?, "kind", "row", "screen"}`); `nil` otherwise.
    public var event: [UInt8]?
    /// The state keys whose value the change set or changed, as a JSON array of strings.
    public var changedKeys: [UInt8]

    public init(cause: Cause, event: [UInt8]?, changedKeys: [UInt8]) {
        self.cause = cause
        self.event = event
        self.changedKeys = changedKeys
    }

    /// A new session: every key of its state is set.
    public static func created(_ state: SessionState) -> FeedRecord {
        FeedRecord(cause: .created, event: nil, changedKeys: keysJSON(Array(state.values.keys)))
    }

    /// A client replaced its context (``ClientContext``): no state key changed.
    public static let client = FeedRecord(cause: .client, event: nil, changedKeys: keysJSON([]))

    /// A client's event that changed the state; `value` is an edit's stored value (never a
    /// secure field's), `form` a submit's form and its values (never a secure field's).
    public static func event(
        kind: String, _ event: Event, screen: String, item: String? = nil, eventID: String?, changedKeys: [String], value: JSONValue? = nil,
        form: (name: String, values: JSONValue)? = nil
    ) -> FeedRecord {
        var writer = JSONWriter(reservingCapacity: 96)
        writer.beginObject()
        if case .action(_, let action) = event {
            writer.key("action"); writer.string(action)
        }
        if let eventID {
            writer.key("eventId"); writer.string(eventID)
        }
        if let form {
            writer.key("form"); writer.string(form.name)
        }
        if case .setSwitch(_, let isOn) = event {
            writer.key("isOn"); writer.bool(isOn)
        }
        if let item {
            writer.key("item"); writer.string(item)
        }
        writer.key("kind"); writer.string(kind)
        writer.key("row"); writer.string(event.rowID)
        writer.key("screen"); writer.string(screen)
        if case .move(_, let destination) = event {
            writer.key("to")
            writer.write(destination)
        }
        if let value {
            writer.key("value"); writer.write(value)
        }
        if let form {
            writer.key("values"); writer.write(form.values)
        }
        writer.endObject()
        return FeedRecord(cause: .event, event: writer.bytes, changedKeys: keysJSON(changedKeys))
    }

    /// For an event on an item screen, the item it showed: read from the event's own JSON,
    /// its one owner, so that stores keep no column for it. Only an event whose bytes hold
    /// `"item":` is parsed (a value's text may hold it too, escaped; the parse tells).
    var item: String? {
        guard let event, event.firstRange(of: Self.itemKey) != nil else { return nil }
        return (try? JSONParser().parse(event))?.objectValue?["item"]?.stringValue
    }

    private static let itemKey = Array(#""item":"#.utf8)

    /// A backend's write that changed the state.
    public static func patch(changedKeys: [String]) -> FeedRecord {
        FeedRecord(cause: .patch, event: nil, changedKeys: keysJSON(changedKeys))
    }

    /// A session removed, by the backend or because it expired.
    public static let deleted = FeedRecord(cause: .deleted, event: nil, changedKeys: Array("[]".utf8))

    /// The keys as a JSON array, in ascending order (most events change one key: nothing to
    /// sort then).
    private static func keysJSON(_ keys: [String]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 16 * keys.count + 2)
        writer.beginArray()
        for key in keys.count > 1 ? keys.sorted() : keys { writer.string(key) }
        writer.endArray()
        return writer.bytes
    }
}

/// A position in the feed: entries are ordered by it, and a reader asks for the entries
/// after the last one it read. Two parts, so that PostgreSQL can order by transaction
/// (`PostgresSessionStore`); the other stores count in `low` alone. Its text is opaque to
/// clients: 32 hexadecimal digits, which sort as the cursors do.
public struct FeedCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64 = 0, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Before every entry.
    public static let start = FeedCursor(low: 0)

    public static func < (a: FeedCursor, b: FeedCursor) -> Bool {
        (a.high, a.low) < (b.high, b.low)
    }

    public var description: String { Self.hex(high) + Self.hex(low) }

    /// Reads a cursor's text; `nil` for anything a cursor's text is not.
    public init?(_ text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 32 else { return nil }
        var parts: [UInt64] = [0, 0]
        for (index, digit) in digits.enumerated() {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            parts[index / 16] = parts[index / 16] << 4 | UInt64(value)
        }
        self.init(high: parts[0], low: parts[1])
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// One entry of the feed, as a store returns it.
public struct FeedEntry: Sendable, Equatable {
    public var cursor: FeedCursor
    public var sessionID: String
    public var subject: String?
    /// The revision the change left the session at (for a deletion: its last).
    public var revision: Int
    public var record: FeedRecord
    /// Unix time in milliseconds.
    public var time: Milliseconds

    public init(cursor: FeedCursor, sessionID: String, subject: String?, revision: Int, record: FeedRecord, time: Milliseconds) {
        self.cursor = cursor
        self.sessionID = sessionID
        self.subject = subject
        self.revision = revision
        self.record = record
        self.time = time
    }
}

/// What a store answers to a read of the feed.
public enum FeedPage: Sendable, Equatable {
    /// The entries after the cursor asked for, oldest first, and the cursor to ask after
    /// next: the last entry's, or, when there was none, the one asked for (or, when none
    /// was, the position before the oldest entry kept).
    case entries([FeedEntry], next: FeedCursor)
    /// Entries after the cursor asked for were removed by retention (the reader missed
    /// them), or the cursor is not one this feed gave. `oldest` is the position before the
    /// oldest entry kept.
    case expired(oldest: FeedCursor)
}

extension FeedPage {
    /// A read of a feed whose entries up to `pruned` were removed and whose newest entry is
    /// at `newest` (`pruned` when it holds none): the entries `entries` finds after `after`
    /// (or after `pruned`). An `after` before `pruned` missed removed entries; one past
    /// `newest` was not given by this feed as it is (its store was restored or replaced, or
    /// its cursor came from another one), and entries written from now on could sort before
    /// it: both are expired, so that the reader reads its sessions again rather than miss
    /// anything. Every store reads its feed this way.
    static func read<Failure: Error>(
        after: FeedCursor?, pruned: FeedCursor, newest: FeedCursor, _ entries: (FeedCursor) throws(Failure) -> [FeedEntry]
    ) throws(Failure) -> FeedPage {
        if let after, after < pruned || after > max(newest, pruned) { return .expired(oldest: pruned) }
        let from = after ?? pruned
        let found = try entries(from)
        return .entries(found, next: found.last?.cursor ?? from)
    }
}
