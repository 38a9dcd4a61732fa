import TabulaPlatform

/// The catalogue every request reads, and that a reload replaces.
///
/// Every server thread reads it on every request, so a read must not write memory that
/// other threads read: a retain of one shared object (or a lock taken by all) would move its
/// cache line between cores on every `GET`, as the response cache's comment describes.
/// Each thread's shard therefore holds an unretained reference, read under the shard's own
/// lock; the strong reference is kept here and let go only after every shard points to the
/// new catalogue, which waits for readers still inside ``withCurrent(_:)``.
/// `Scripts/bench-pairs` compares `GET`s with the code before it.
final class CurrentCatalogue: Sendable {
    private let shards: ShardedStorage<Unretained<ServedCatalogue>>
    private let owner: Locked<ServedCatalogue>

    init(_ initial: ServedCatalogue) {
        owner = Locked(initial)
        shards = ShardedStorage(perThread: { Unretained(initial) })
    }

    /// The current catalogue, retained: for work that may outlive the call, such as a
    /// request that waits for the store.
    var current: ServedCatalogue { owner.withLock { $0 } }

    /// Runs `body` with the current catalogue, retaining nothing: for the answers from the response cache.
    func withCurrent<Result>(_ body: (ServedCatalogue) -> Result) -> Result {
        shards.readThreadShard { served in served.with(body) }
    }

    /// Serves `new` from now on; returns the catalogue it replaces.
    @discardableResult
    func replace(with new: ServedCatalogue) -> ServedCatalogue {
        owner.withLock { owner in
            let old = owner
            owner = new
            // Under the owner's lock, so that two replacements cannot interleave their shards.
            shards.writeEach { $0 = Unretained(new) }
            return old
        }
    }
}
