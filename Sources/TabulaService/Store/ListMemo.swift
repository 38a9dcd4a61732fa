import Synchronization
import TabulaCore
import TabulaPlatform

/// What was computed from state lists (their stored bytes, their measured size, the columns
/// a search reads), remembered by the identity of their storage.
///
/// An event that does not touch a list leaves it in the storage it had, and sessions that
/// never changed a list share their default's storage. Encoding a state for a store, or
/// measuring it against the state limits, walked every record of every list on every event
/// (most of the state in the bundled catalogue; up to the whole state limit in
/// others). A list whose storage is the one remembered for its key answers from memory
/// instead. The memo keeps the list it remembers alive, so a storage it matches cannot be
/// another list's reused memory. `BENCH_INSTRUCTIONS_REQUEST=switch Scripts/bench-instructions`
/// counts what an event costs with it.
///
/// A search of a long list (a `filter` or a `count` condition) reads its items' fields from
/// columns (``ItemColumn``), built once the same storage has been searched in
/// ``searchesBeforeColumns`` events: a list that changes on every event is read item by item,
/// as building its columns would cost more than the event's searches. Each thread keeps the
/// columns of the lists it searched last, one list per state key, as it keeps their sizes.
/// `Scripts/bench-lists` prints what a keystroke in a search costs with them.
struct ListMemo: Sendable {
    private struct Entry {
        var key: String
        var records: [Record]
        var bytes: [UInt8]?
        var measuredBytes: Int?
        /// The events that searched this storage, and the last of them.
        var searches = 0
        var lastSearch: UInt64 = 0
        var columns: [ColumnKey: ItemColumn] = [:]
    }

    private struct ColumnKey: Hashable {
        var field: String
        var type: ScalarType
    }

    static let searchesBeforeColumns = 3

    /// One entry per list key, in the order they were first asked for, and where to look
    /// first: callers walk a state's keys in the same order event after event, so the entry
    /// after the last one found is usually the one asked for (hashing each key, as a
    /// dictionary does, cost more than measuring a short list).
    private var entries: [Entry] = []
    private var next = 0

    init() {}

    /// The stored form of `records`, the value of `key`.
    mutating func bytes(_ key: String, _ records: [Record]) -> [UInt8] {
        withEntry(key, records) { entry in
            if let bytes = entry.bytes { return bytes }
            let bytes = SessionState.listBytes(records)
            entry.bytes = bytes
            return bytes
        }
    }

    /// The measured size of `records`, the value of `key`.
    mutating func measuredBytes(_ key: String, _ records: [Record]) -> Int {
        withEntry(key, records) { entry in
            if let size = entry.measuredBytes { return size }
            let size = StateLimits.measuredBytes(records)
            entry.measuredBytes = size
            return size
        }
    }

    /// The column of `field` of `records`, the value of `key`, for the search of an event
    /// (numbered `event`), once that storage has been searched in enough events; `nil` before.
    mutating func column(_ field: String, _ type: ScalarType, ofList key: String, _ records: [Record], event: UInt64) -> ItemColumn? {
        withEntry(key, records) { entry in
            let columnKey = ColumnKey(field: field, type: type)
            if let column = entry.columns[columnKey] { return column }
            if entry.lastSearch != event { (entry.searches, entry.lastSearch) = (entry.searches + 1, event) }
            guard entry.searches >= Self.searchesBeforeColumns else { return nil }
            let column = ItemColumn(field, type, of: records)
            entry.columns[columnKey] = column
            return column
        }
    }

    /// Runs `body` on what is remembered of `key`'s list if it has `records`' storage, and
    /// otherwise on a new entry that takes the place of the key's earlier one.
    private mutating func withEntry<Value>(_ key: String, _ records: [Record], _ body: (inout Entry) -> Value) -> Value {
        let index = next < entries.count && entries[next].key == key ? next : entries.firstIndex { $0.key == key }
        guard let index else {
            entries.append(Entry(key: key, records: records))
            return withEntry(at: entries.count - 1, body)
        }
        if entries[index].records.count != records.count || !Self.sameStorage(entries[index].records, records) {
            entries[index] = Entry(key: key, records: records)
        }
        return withEntry(at: index, body)
    }

    private mutating func withEntry<Value>(at index: Int, _ body: (inout Entry) -> Value) -> Value {
        next = index + 1
        return body(&entries[index])
    }

    private static func sameStorage(_ first: [Record], _ second: [Record]) -> Bool {
        first.withUnsafeBufferPointer { left in second.withUnsafeBufferPointer { right in left.baseAddress == right.baseAddress } }
    }
}

extension SessionState {
    /// ``valuesBytes``, writing lists whose storage `memo` remembers from their remembered
    /// bytes (a store encodes a session's state on every event that changes it).
    func valuesBytes(reusing memo: inout ListMemo) -> [UInt8] {
        valuesBytes { key, records in memo.bytes(key, records) }
    }
}

/// Each thread's list memo as the core's source of columns, for one event: bound around its
/// decision (`ItemColumns.$source.withValue`).
struct ListMemoColumns: ItemColumnSource {
    private static let events = Atomic<UInt64>(0)

    let memos: ShardedStorage<ListMemo>
    /// This event's number, which tells the memo's count of searches one event from another.
    private let event: UInt64

    init(memos: ShardedStorage<ListMemo>) {
        self.memos = memos
        event = Self.events.add(1, ordering: .relaxed).newValue
    }

    func column(_ field: String, _ type: ScalarType, ofList list: String, _ records: [Record]) -> ItemColumn? {
        memos.withThreadShard { $0.column(field, type, ofList: list, records, event: event) }
    }
}

extension StateLimits {
    /// ``violation(of:)``, measuring lists whose storage `memo` remembers by their remembered
    /// size (the service checks the state after every event that changes it).
    func violation(of state: SessionState, reusing memo: inout ListMemo) -> Violation? {
        violation(of: state) { key, records in memo.measuredBytes(key, records) }
    }
}
