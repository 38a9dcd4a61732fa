/// A cheap hash: multiply-xor over 8-byte words, then over the bytes left. For keys where a
/// crowded bucket cannot be made on purpose (tokens the server drew at random, entries only
/// the server's own answers fill) or costs no more than a miss; SipHash, which `Hasher`
/// runs, costs several times as much per byte on every request.
@frozen
public struct WordHash {
    @usableFromInline var state: UInt64

    /// The hash of what was added.
    @inlinable public var value: UInt64 { state }

    @inlinable
    public init(seed: UInt64) {
        state = seed &* 0x9e37_79b9_7f4a_7c15
    }

    /// Mixes in one word.
    @inlinable @inline(__always)
    public mutating func add(_ word: UInt64) {
        state = (state ^ word) &* 0x100_0000_01b3
        state ^= state >> 29
    }

    /// Mixes in `bytes`, a word at a time while eight are left. Inlinable, as the hash of a
    /// session token on every request was before it moved here.
    @inlinable
    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset + 8 <= bytes.count {
            add(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        while offset < bytes.count {
            state = (state ^ UInt64(bytes[offset])) &* 0x100_0000_01b3
            offset += 1
        }
    }
}
