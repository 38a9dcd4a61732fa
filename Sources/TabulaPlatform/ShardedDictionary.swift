/// A dictionary split over several reader-writer locks by key hash: lookups share their
/// shard's lock, and threads working on different keys rarely meet at all.
public final class ShardedDictionary<Key: ShardKey, Value: Sendable>: Sendable {
    @usableFromInline let shards: ShardedStorage<[Key: Value]>

    public init(shards: Int = 16) {
        self.shards = ShardedStorage(count: shards) { [:] }
    }

    @inlinable
    public subscript(key: Key) -> Value? {
        get { shards.read(key.shardHash) { $0[key] } }
        set { shards.write(key.shardHash) { $0[key] = newValue } }
    }

    /// Runs `body` on the key's shard, with its lock held for writing.
    @inlinable
    public func withShard<Result>(of key: Key, _ body: (inout [Key: Value]) -> Result) -> Result {
        shards.write(key.shardHash) { body(&$0) }
    }

    /// The number of entries in all shards.
    public var count: Int {
        var total = 0
        shards.readEach { total += $0.count }
        return total
    }

    /// Runs `body` on every shard in turn, each with its lock held for writing.
    public func forEachShard(_ body: (inout [Key: Value]) -> Void) {
        shards.writeEach(body)
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
