import TabulaHTTP

/// A session token as a dictionary key, hashed once with a cheap multiply-xor hash instead
/// of SipHash on every lookup. That is safe here because every key stored is a token the server
/// drew at random: a client's made-up token can only miss, never crowd a bucket.
public struct SessionKey: ShardKey {
    public let token: String
    public let hash: Int

    public init(_ token: String) {
        self.token = token
        var text = token
        hash = text.withUTF8 { bytes -> Int in
            let raw = UnsafeRawBufferPointer(bytes)
            var hash = UInt64(raw.count) &* 0x9e37_79b9_7f4a_7c15
            var offset = 0
            while offset + 8 <= raw.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x100_0000_01b3
                hash ^= hash >> 29
                offset += 8
            }
            while offset < raw.count {
                hash = (hash ^ UInt64(raw[offset])) &* 0x100_0000_01b3
                offset += 1
            }
            return Int(bitPattern: UInt(hash))
        }
    }

    /// Mixed, so that the shard index (taken modulo a small count) sees every bit.
    public var shardHash: Int { hash ^ (hash >> 32) ^ (hash >> 17) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    public static func == (left: SessionKey, right: SessionKey) -> Bool {
        left.hash == right.hash && left.token == right.token
    }
}
