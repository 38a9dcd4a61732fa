/// A cheap hash: multiply-xor over 8-byte words, then over the bytes left. For keys where a
/// crowded bucket cannot be made on purpose (tokens the server drew at random, entries only
/// the server's own answers fill) or costs no more than a miss; SipHash, which `Hasher`
/// runs, costs several times as much per byte on every request.
public struct WordHash {
    public private(set) var value: UInt64

    public init(seed: UInt64) {
        value = seed &* 0x9e37_79b9_7f4a_7c15
    }

    /// Mixes in one word.
    @inline(__always)
    public mutating func add(_ word: UInt64) {
        value = (value ^ word) &* 0x100_0000_01b3
        value ^= value >> 29
    }

    /// Mixes in `bytes`, a word at a time while eight are left.
    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset + 8 <= bytes.count {
            add(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        while offset < bytes.count {
            value = (value ^ UInt64(bytes[offset])) &* 0x100_0000_01b3
            offset += 1
        }
    }
}
