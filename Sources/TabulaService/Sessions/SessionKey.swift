import TabulaPlatform

/// A session token as a dictionary key: its bytes held inline, so that making, copying and
/// comparing a key allocates and retains nothing (a `GET` with a session makes one from the
/// header's bytes and looks it up in two dictionaries), hashed once with a cheap
/// multiply-xor hash instead of SipHash on every lookup. That is safe here because every key
/// stored is a token the server drew at random: a client's made-up token can only miss,
/// never crowd a bucket.
///
/// Up to ``inlineCapacity`` bytes (a token is ``SessionToken/length``) are kept exactly.
/// Longer text never names a session (the server draws none), but a client may send it; its
/// key keeps the first 24 bytes and a 64-bit hash of the whole text, so that it stays a key
/// of its own and misses.
public struct SessionKey: ShardKey {
    /// The bytes kept inline: a token's length.
    public static let inlineCapacity = 32

    private let words: (UInt64, UInt64, UInt64, UInt64)
    /// The text's length in bytes.
    private let count: Int
    public let hash: Int

    public init(_ token: String) {
        var text = token
        self.init(bytes: text.withUTF8 { UnsafeRawBufferPointer($0) })
    }

    /// A key from a token's bytes as a request brings them, with no string made of them.
    public init(bytes: UnsafeRawBufferPointer) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { storage in
            let kept = min(bytes.count, Self.inlineCapacity)
            if kept > 0, let source = bytes.baseAddress, let target = storage.baseAddress {
                target.copyMemory(from: source, byteCount: kept)
            }
            if bytes.count > Self.inlineCapacity {
                storage.storeBytes(of: Self.mix(bytes, seed: 0), toByteOffset: 24, as: UInt64.self)
            }
        }
        self.words = words
        count = bytes.count
        hash = Int(bitPattern: UInt(Self.mix(bytes, seed: UInt64(bytes.count))))
    }

    /// The token's text (made anew at each call: for the rare callers that need a string).
    public var token: String {
        withUnsafeBytes(of: words) { storage in
            String(decoding: storage.prefix(min(count, Self.inlineCapacity)), as: UTF8.self)
        }
    }

    /// ``WordHash`` of the bytes.
    private static func mix(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = WordHash(seed: seed)
        hash.add(bytes)
        return hash.value
    }

    /// Mixed, so that the shard index (taken modulo a small count) sees every bit.
    public var shardHash: Int { hash ^ (hash >> 32) ^ (hash >> 17) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    /// What Dictionary asks for: the precomputed hash, with no `Hasher` (see ``seededHash(_:seed:)``).
    public func _rawHashValue(seed: Int) -> Int {
        seededHash(hash, seed: seed)
    }

    public static func == (left: SessionKey, right: SessionKey) -> Bool {
        left.hash == right.hash && left.count == right.count
            && left.words.0 == right.words.0 && left.words.1 == right.words.1
            && left.words.2 == right.words.2 && left.words.3 == right.words.3
    }
}
