/// A dictionary split over several reader-writer locks by key hash: lookups share their
/// shard's lock, and threads working on different keys rarely meet at all.
public final class ShardedDictionary<Key: ShardKey, Value: Sendable>: Sendable {
    @usableFromInline let shards: [ReadWriteLocked<[Key: Value]>]

    public init(shards: Int = 16) {
        self.shards = (0..<max(1, shards)).map { _ in ReadWriteLocked([:]) }
    }

    @inlinable
    func shard(_ key: Key) -> ReadWriteLocked<[Key: Value]> {
        shards[Int(UInt(bitPattern: key.shardHash) % UInt(shards.count))]
    }

    @inlinable
    public subscript(key: Key) -> Value? {
        get { shard(key).read { $0[key] } }
        set { shard(key).write { $0[key] = newValue } }
    }

    /// Runs `body` on the key's shard, with its lock held for writing.
    @inlinable
    public func withShard<Result>(of key: Key, _ body: (inout [Key: Value]) -> Result) -> Result {
        shard(key).write { body(&$0) }
    }

    /// The number of entries in all shards.
    public var count: Int { shards.reduce(0) { $0 + $1.read { $0.count } } }

    /// Runs `body` on every shard in turn, each with its lock held for writing.
    public func forEachShard(_ body: (inout [Key: Value]) -> Void) {
        for shard in shards { shard.write { body(&$0) } }
    }
}

/// A key of a ``ShardedDictionary``: `shardHash` picks its shard.
public protocol ShardKey: Hashable, Sendable {
    /// Spreads keys over shards; `hashValue` unless the key has a cheaper hash of its own.
    var shardHash: Int { get }
}

extension ShardKey {
    public var shardHash: Int { hashValue }
}
