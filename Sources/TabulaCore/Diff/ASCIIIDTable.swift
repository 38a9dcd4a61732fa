/// A hash table from ids to their positions, for ids that are all ASCII: one FNV-1a pass
/// over each id's bytes instead of `Hasher`'s seeded SipHash, which dominated the diff's
/// profile. For ASCII text, byte equality is `String` equality (canonical equivalence
/// only differs beyond ASCII), so the table answers exactly like a `[String: Int]`.
struct ASCIIIDTable {
    /// Position + 1 of the id in each slot; 0 for an empty slot.
    private var slots: [Int32]
    private var hashes: [UInt64]
    private let mask: Int

    /// The table of `ids`' positions; `nil` when an id is not ASCII, or one repeats.
    init?(_ ids: [String]) {
        guard ids.count < Int(Int32.max) else { return nil }
        var capacity = 16
        while capacity < ids.count * 2 { capacity <<= 1 }
        mask = capacity - 1
        slots = [Int32](repeating: 0, count: capacity)
        hashes = [UInt64](repeating: 0, count: capacity)
        for (position, id) in ids.enumerated() {
            guard let hash = Self.asciiHash(id) else { return nil }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 {
                if hashes[slot] == hash && ids[Int(slots[slot]) - 1] == id { return nil }
                slot = (slot + 1) & mask
            }
            slots[slot] = Int32(position + 1)
            hashes[slot] = hash
        }
    }

    /// The position of `id` among the ids the table was built from (`ids` must be them).
    /// `nil` when absent; also `nil` for a non-ASCII id, which no ASCII id equals.
    func position(of id: String, in ids: [String]) -> Int? {
        guard let hash = Self.asciiHash(id) else { return nil }
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let position = Int(slots[slot]) - 1
            if hashes[slot] == hash && ids[position] == id { return position }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// FNV-1a of the UTF-8 bytes, or `nil` if a byte is not ASCII.
    private static func asciiHash(_ id: String) -> UInt64? {
        var text = id  // withUTF8 is mutating: it may make a bridged string contiguous
        return text.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            var seen: UInt8 = 0
            for byte in bytes {
                seen |= byte
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
            return seen < 0x80 ? hash : nil
        }
    }
}
