/// The stored form of state lists, remembered by the identity of their storage.
///
/// An event that does not touch a list leaves it in the storage it had, and sessions that
/// never changed a list share their default's storage; encoding a session's state for a
/// store then re-encoded every record of every list on every event (four fifths of the
/// state's bytes in the bundled catalogue). A list whose storage is the one remembered for
/// its key is written from the remembered bytes instead. The memo keeps the list it
/// encoded alive, so a storage it matches cannot be another list's reused memory.
public struct ListEncodingMemo: Sendable {
    private var entries: [String: (records: [Record], bytes: [UInt8])] = [:]

    public init() {}

    /// The encoding of `records`, the value of `key`: remembered, or made by `encode` and
    /// remembered in place of the key's earlier list.
    mutating func bytes(_ key: String, _ records: [Record], encode: ([Record]) -> [UInt8]) -> [UInt8] {
        if let entry = entries[key], entry.records.count == records.count, Self.sameStorage(entry.records, records) {
            return entry.bytes
        }
        let bytes = encode(records)
        entries[key] = (records, bytes)
        return bytes
    }

    private static func sameStorage(_ first: [Record], _ second: [Record]) -> Bool {
        first.withUnsafeBufferPointer { left in second.withUnsafeBufferPointer { right in left.baseAddress == right.baseAddress } }
    }
}
