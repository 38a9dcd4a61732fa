/// A reference to an object shared by many threads, read without retaining it: each retain
/// and release would write the object's reference count, and a count that every thread
/// writes moves its cache line between the cores on every use (the largest user-space cost
/// of a `GET` in `perf`, before these). Something else must keep the object alive for as
/// long as this is read: the owner of this value holds the object in a constant property
/// beside it, or a lock-guarded strong reference is let go only once no reader can see
/// this any more. `Scripts/bench-pairs` measures what it saves.
public struct Unretained<Object: AnyObject>: @unchecked Sendable {
    @usableFromInline let reference: Unmanaged<Object>

    /// Refers to `object` without retaining it.
    public init(_ object: Object) {
        reference = Unmanaged.passUnretained(object)
    }

    /// Runs `body` with the object, retaining it only if `body` keeps it.
    @inlinable
    public func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// The object, retained: for a caller that keeps it.
    public var object: Object { reference.takeUnretainedValue() }
}

/// How many shards per-thread storage has (``ShardedStorage/init(perThread:)``): threads
/// take shards by their ``ThreadSlot``, given out in order of first use, so there must be
/// a shard for every thread that uses them (the server's threads, one per processor and
/// one more; the service's worker pool, one per processor; a few of the stores' and the
/// hub's) for none to share a shard's lock with another.
public enum ThreadShards {
    public static let count: Int = {
        let threads = 2 * ProcessorCount.online + 8
        var count = 8
        while count < threads { count *= 2 }
        return count
    }()
}

/// The processors online, as the thread counts' defaults take them.
public enum ProcessorCount {
    public static var online: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

extension ShardedStorage {
    /// One shard per thread that may use it (``ThreadShards/count``), each starting as `initial()`.
    public convenience init(perThread initial: () -> Value) {
        self.init(count: ThreadShards.count, initial)
    }
}
