import Synchronization
import TabulaPlatform

/// The server's request counts, one shard per thread (``ThreadSlot``), each shard on cache
/// lines of its own: counting a request is an uncontended atomic add on the calling thread's
/// line (a lock per shard cost three times the instructions), and a read adds the shards up.
final class RequestCounts: @unchecked Sendable {
    enum Count: Int {
        /// Requests begun minus requests completed: a shard may go below zero when another
        /// thread completes a request; the sum over the shards is exact.
        case inProgress
        /// Requests answered through ``HTTPHandler/quickAnswer(_:)``.
        case quickAnswers
        /// Requests whose handler is running on their connection's thread (shards may go
        /// below zero, as for `inProgress`).
        case inHandler
    }

    private let counters: UnsafeMutablePointer<Atomic<Int>>
    /// Shards: one per thread that may count (a power of two, so that a thread's shard is its
    /// slot's low bits).
    private let shardCount = ThreadShards.count
    /// Counters a shard spans: 128 bytes, the span the adjacent-line prefetcher pulls in together.
    private static var shardStride: Int { 128 / MemoryLayout<Atomic<Int>>.stride }

    init() {
        let total = shardCount * Self.shardStride
        counters = UnsafeMutableRawPointer.allocate(byteCount: total * MemoryLayout<Atomic<Int>>.stride, alignment: 128)
            .bindMemory(to: Atomic<Int>.self, capacity: total)
        for index in 0..<total { (counters + index).initialize(to: Atomic(0)) }
    }

    deinit {
        counters.deinitialize(count: shardCount * Self.shardStride)
        counters.deallocate()
    }

    /// Adds `amount` to a count, and to a second one if given, in the calling thread's shard
    /// (found once for both).
    func add(_ amount: Int, to count: Count, and other: Count? = nil) {
        let base = (ThreadSlot.current & (shardCount - 1)) * Self.shardStride
        counters[base + count.rawValue].wrappingAdd(amount, ordering: .relaxed)
        if let other { counters[base + other.rawValue].wrappingAdd(amount, ordering: .relaxed) }
    }

    /// A count added up over the shards.
    func total(_ count: Count) -> Int {
        var sum = 0
        for shard in 0..<shardCount {
            sum &+= counters[shard * Self.shardStride + count.rawValue].load(ordering: .relaxed)
        }
        return sum
    }
}
