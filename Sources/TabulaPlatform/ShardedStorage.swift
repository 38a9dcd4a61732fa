/// A fixed number of values, each guarded by its own read-write lock, laid out in one
/// allocation with every shard on cache lines of its own (128 bytes apart, the span the
/// adjacent-line prefetcher pulls in together). Threads working on different shards never
/// write to a line another thread reads: with one small object per lock, malloc put several
/// locks on one line, and every lock and unlock bounced that line between cores. Reaching a
/// shard retains nothing.
public final class ShardedStorage<Value>: @unchecked Sendable {
    /// How many shards there are; a shard number is taken modulo this.
    public let count: Int
    @usableFromInline let base: UnsafeMutableRawPointer

    @usableFromInline static var valueOffset: Int {
        let alignment = MemoryLayout<Value>.alignment
        return (MemoryLayout<pthread_rwlock_t>.size + alignment - 1) / alignment * alignment
    }

    @usableFromInline static var stride: Int {
        (valueOffset + MemoryLayout<Value>.size + 127) / 128 * 128
    }

    /// `count` shards (at least one), each starting as `initial()`.
    public init(count: Int, _ initial: () -> Value) {
        self.count = max(1, count)
        base = .allocate(byteCount: self.count * Self.stride, alignment: 128)
        for shard in 0..<self.count {
            let slot = base + shard * Self.stride
            pthread_rwlock_init(slot.bindMemory(to: pthread_rwlock_t.self, capacity: 1), nil)
            (slot + Self.valueOffset).bindMemory(to: Value.self, capacity: 1).initialize(to: initial())
        }
    }

    deinit {
        for shard in 0..<count {
            value(shard).deinitialize(count: 1)
            pthread_rwlock_destroy(lock(shard))
        }
        base.deallocate()
    }

    @inlinable
    func lock(_ shard: Int) -> UnsafeMutablePointer<pthread_rwlock_t> {
        (base + shard * Self.stride).assumingMemoryBound(to: pthread_rwlock_t.self)
    }

    @inlinable
    func value(_ shard: Int) -> UnsafeMutablePointer<Value> {
        (base + shard * Self.stride + Self.valueOffset).assumingMemoryBound(to: Value.self)
    }

    @inlinable
    func index(_ shard: Int) -> Int {
        Int(UInt(bitPattern: shard) % UInt(count))
    }

    /// Runs `body` with shared access to shard `shard` (modulo ``count``).
    @inlinable
    public func read<Result, Failure: Error>(_ shard: Int, _ body: (Value) throws(Failure) -> Result) throws(Failure) -> Result {
        let index = index(shard)
        pthread_rwlock_rdlock(lock(index))
        defer { pthread_rwlock_unlock(lock(index)) }
        return try body(value(index).pointee)
    }

    /// Runs `body` with exclusive access to shard `shard` (modulo ``count``).
    @inlinable
    public func write<Result, Failure: Error>(_ shard: Int, _ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        let index = index(shard)
        pthread_rwlock_wrlock(lock(index))
        defer { pthread_rwlock_unlock(lock(index)) }
        return try body(&value(index).pointee)
    }

    /// Runs `body` on every shard in turn, each with shared access: for adding up.
    public func readEach(_ body: (Value) -> Void) {
        for shard in 0..<count { read(shard, body) }
    }

    /// Runs `body` on every shard in turn, each with exclusive access.
    public func writeEach(_ body: (inout Value) -> Void) {
        for shard in 0..<count { write(shard, body) }
    }

    /// Runs `body` on the calling thread's shard (``ThreadSlot``), with shared access: for
    /// values that every shard holds a copy of and that change rarely.
    @inlinable
    public func readThreadShard<Result, Failure: Error>(_ body: (Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try read(ThreadSlot.current, body)
    }

    /// Runs `body` on the calling thread's shard (``ThreadSlot``), with exclusive access:
    /// for per-thread buffers and counters that are added up only when read.
    @inlinable
    public func withThreadShard<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try write(ThreadSlot.current, body)
    }
}
