import Foundation
import Testing

@testable import TabulaPlatform

@Suite struct ShardedStorageTests {
    @Test func shardsAreSeparateAndNumbersWrapAround() {
        let storage = ShardedStorage<[String]>(count: 4) { [] }
        storage.write(1) { $0.append("one") }
        storage.write(5) { $0.append("five") }  // 5 mod 4: the same shard as 1
        storage.write(-1) { $0.append("minus one") }  // taken as an unsigned number, never a negative index
        #expect(storage.read(1) { $0 } == ["one", "five"])
        #expect(storage.read(2) { $0 } == [])
        let minusOne = Int(UInt(bitPattern: -1) % 4)
        #expect(storage.read(minusOne) { $0 } == ["minus one"])
        #expect(ShardedStorage<Int>(count: 0) { 0 }.count == 1)
    }

    @Test func everyShardHasCacheLinesOfItsOwn() {
        let small = ShardedStorage<Int>(count: 3) { 0 }
        #expect(Int(bitPattern: small.base) % 128 == 0)
        #expect(ShardedStorage<Int>.stride == 128)
        #expect(ShardedStorage<Int>.valueOffset >= MemoryLayout<pthread_rwlock_t>.size)
        #expect(UnsafeMutableRawPointer(small.lock(2)) - UnsafeMutableRawPointer(small.lock(1)) == 128)
        // A value larger than what is left of a 128-byte slot gets a wider, still aligned, slot.
        #expect(ShardedStorage<(Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)>.stride == 256)
    }

    /// Shards follow the threads a process runs: a power of two with room for them and the
    /// few others, never fewer than the defaults need; fixed once read.
    @Test func threadShardsFollowTheThreadsAndAreFixedOnceRead() {
        #expect(ThreadShards.count(for: 0) == 8)
        #expect(ThreadShards.count(for: 3) == 16)
        #expect(ThreadShards.count(for: 8) == 16)
        #expect(ThreadShards.count(for: 9) == 32)
        #expect(ThreadShards.count(for: 1024 + 1024) == 4096)
        let count = ThreadShards.count
        #expect(count >= ThreadShards.defaultCount && count.nonzeroBitCount == 1)
        #expect(!ThreadShards.reserve(threads: 4096), "a count already read changed")
        #expect(ThreadShards.count == count)
        #expect(ShardedStorage<Int>(perThread: { 0 }).count == count)
    }

    @Test func eachThreadKeepsItsOwnSlot() {
        let slots = Locked<[Int]>([])
        let threads = (0..<4).map { _ in
            Thread {
                let first = ThreadSlot.current
                #expect(ThreadSlot.current == first)
                slots.withLock { $0.append(first) }
            }
        }
        threads.forEach { $0.start() }
        while slots.withLock({ $0.count }) < threads.count { usleep(1_000) }
        let seen = slots.withLock { $0 }
        #expect(Set(seen).count == threads.count)
        #expect(seen.allSatisfy { $0 >= 0 })
    }

    @Test func countsFromManyThreadsAddUp() async {
        let storage = ShardedStorage<Int>(count: 8) { 0 }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 { storage.withThreadShard { $0 += 1 } }
                }
            }
        }
        let total = (0..<storage.count).reduce(0) { sum, shard in sum + storage.read(shard) { $0 } }
        #expect(total == 80_000)
    }

    @Test func valuesAreReleasedWithTheStorage() {
        final class Probe {}
        weak var probe: Probe?
        do {
            let storage = ShardedStorage<Probe?>(count: 2) { nil }
            storage.write(0) { value in
                let made = Probe()
                probe = made
                value = made
            }
            #expect(probe != nil)
            _ = storage
        }
        #expect(probe == nil)
    }
}
