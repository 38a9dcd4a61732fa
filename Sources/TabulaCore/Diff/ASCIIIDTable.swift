/// A hash table from ids to their positions, for ids that are all ASCII: one pass over
/// each id's bytes, eight at a time, instead of `Hasher`'s seeded SipHash, which dominated
/// the diff's profile. Between two ASCII strings, byte equality is `String` equality, so for
/// ASCII lookups the table answers exactly like a `[String: Int]`. A non-ASCII id may still
/// equal an ASCII one (U+212A KELVIN SIGN is canonically equivalent to "K"), so the table does
/// not answer for it: the lookup says so and the caller uses a dictionary.
struct ASCIIIDTable {
    /// What a lookup found.
    enum Lookup: Equatable {
        case found(Int)
        case absent
        /// The id is not ASCII: only `String` comparison can say whether it is among the ids.
        case notASCII
    }

    /// Per slot, the upper half of the id's hash above its position + 1; 0 for an empty slot.
    /// One word per slot, so that a probe costs one cache miss at 100,000 rows, not two.
    private var slots: [UInt64]
    private let mask: Int

    private static let tagMask: UInt64 = 0xFFFF_FFFF_0000_0000

    /// The table of `ids`' positions; `nil` when an id is not ASCII, or one repeats.
    init?(_ ids: [String]) {
        guard ids.count < Int(Int32.max) else { return nil }
        var capacity = 16
        while capacity < ids.count * 2 { capacity <<= 1 }
        mask = capacity - 1
        slots = [UInt64](repeating: 0, count: capacity)
        for (position, id) in ids.enumerated() {
            guard let hash = Self.asciiHash(id) else { return nil }
            let tag = hash & Self.tagMask
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 {
                if slots[slot] & Self.tagMask == tag && ids[Self.position(slots[slot])] == id { return nil }
                slot = (slot + 1) & mask
            }
            slots[slot] = tag | UInt64(position + 1)
        }
    }

    /// The position of `id` among the ids the table was built from (`ids` must be them).
    func position(of id: String, in ids: [String]) -> Lookup {
        guard let hash = Self.asciiHash(id) else { return .notASCII }
        let tag = hash & Self.tagMask
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            if slots[slot] & Self.tagMask == tag {
                let position = Self.position(slots[slot])
                if ids[position] == id { return .found(position) }
            }
            slot = (slot + 1) & mask
        }
        return .absent
    }

    private static func position(_ entry: UInt64) -> Int {
        Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
    }

    /// A hash of the UTF-8 bytes taken eight at a time (multiply-xorshift, then a final
    /// avalanche), or `nil` if a byte is not ASCII.
    private static func asciiHash(_ id: String) -> UInt64? {
        var text = id  // withUTF8 is mutating: it may make a bridged string contiguous
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
            let raw = UnsafeRawPointer(base)
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
            var seen: UInt64 = 0
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                seen |= word
                hash = (hash ^ word) &* 0x9e37_79b9_7f4a_7c15
                hash ^= hash >> 29
                offset += 8
            }
            if offset < bytes.count {
                var word: UInt64 = 0
                for index in offset..<bytes.count { word |= UInt64(bytes[index]) << (8 * UInt64(index - offset)) }
                seen |= word
                hash = (hash ^ word) &* 0x9e37_79b9_7f4a_7c15
            }
            hash ^= hash >> 32
            hash = hash &* 0xd6e8_feb8_6659_fd93
            hash ^= hash >> 32
            return seen & 0x8080_8080_8080_8080 == 0 ? hash : nil
        }
    }
}
