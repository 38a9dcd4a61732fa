import Testing

@testable import TabulaPlatform

@Suite struct UnretainedTests {
    @Test func readsTheObjectWithoutKeepingIt() {
        final class Probe { let name = "probe" }
        weak var weakProbe: Probe?
        var kept: Probe? = Probe()
        weakProbe = kept
        let unretained = kept.map { Unretained($0) }
        #expect(unretained?.with { $0.name } == "probe")
        #expect(unretained?.object === weakProbe)
        kept = nil
        // The owner let go, and nothing the reference did kept the object alive.
        #expect(weakProbe == nil)
    }

    @Test func thereIsAShardForEveryThreadThatMayUseOne() {
        let count = ThreadShards.count
        #expect(count & (count - 1) == 0, "a power of two, so a slot's low bits pick the shard")
        #expect(count >= 2 * ProcessorCount.online + 8)
        #expect(ShardedStorage<Int>(perThread: { 0 }).count == count)
    }
}
