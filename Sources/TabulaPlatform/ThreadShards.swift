import Glibc
import Synchronization

/// How many shards per-thread storage has (``ShardedStorage/init(perThread:)``): threads
/// take shards by their ``ThreadSlot``, given out in order of first use, so there must be
/// a shard for every thread that uses them (the server's threads, the service's worker
/// pool, a few of the stores' and the hub's) for none to share a shard's lock with another.
///
/// The count follows the threads the process runs: `tabula serve` ``reserve(threads:)``s
/// its server's and pool's before it builds anything sharded. A process that reserves
/// nothing (a test, a benchmark) gets shards for the thread counts' defaults. Fixed at the
/// first read: storage built with it keeps its own count, so a thread past the count still
/// finds a shard, and only shares its lock.
public enum ThreadShards {
    /// The count, once fixed; 0 before.
    private static let fixed = Atomic<Int>(0)

    /// Threads besides the server's and the pool's that use per-thread storage: the stores',
    /// the stream hub's, the backend calls'.
    static let otherThreads = 8

    /// Shards for the server's threads and the pool's at their defaults.
    static var defaultCount: Int { count(for: 2 * ProcessorCount.online) }

    /// A power of two (a thread's shard is its slot's low bits) with room for `threads` and
    /// the ``otherThreads``.
    static func count(for threads: Int) -> Int {
        let wanted = max(threads, 0) + otherThreads
        var count = 8
        while count < wanted { count *= 2 }
        return count
    }

    /// The count, fixed at the first read.
    public static var count: Int {
        let current = fixed.load(ordering: .acquiring)
        if current != 0 { return current }
        return fix(defaultCount)
    }

    /// Fixes the count for a process whose server and pool run `threads` threads in all (at
    /// least the default's); `false` when the count was already fixed.
    @discardableResult
    public static func reserve(threads: Int) -> Bool {
        let wanted = max(count(for: threads), defaultCount)
        return fixed.compareExchange(expected: 0, desired: wanted, ordering: .acquiringAndReleasing).exchanged
    }

    private static func fix(_ count: Int) -> Int {
        let (exchanged, original) = fixed.compareExchange(expected: 0, desired: count, ordering: .acquiringAndReleasing)
        return exchanged ? count : original
    }
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
