import Testing

@testable import TabulaPlatform

/// The queue behind the SQLite writer, its answering thread and the worker pools.
@Suite struct BlockingQueueTests {
    final class Payload: Sendable {}

    /// What a job holds (an answer's screen and body, say) is freed once the job is taken
    /// and run, not when the queue next compacts its storage (after 1,024 takes): holding
    /// them kept every answer of the last thousand events alive under load.
    @Test func aTakenJobIsFreedOnceItsTakerDropsIt() {
        let queue = BlockingQueue<Payload>(capacity: 10)
        weak var watched: Payload?
        do {
            let payload = Payload()
            watched = payload
            #expect(queue.push(payload))
            #expect(queue.push(Payload()))
        }
        do {
            let taken = queue.take(maximum: 1)
            #expect(taken?.count == 1)
            #expect(taken?.first === watched)
        }
        #expect(watched == nil)
        #expect(queue.count == 1)
    }

    @Test func jobsComeOutInOrderUpToTheMaximumAndClosingDrainsFirst() {
        let queue = BlockingQueue<Int>(capacity: 3)
        #expect(queue.push(1) && queue.push(2) && queue.push(3))
        #expect(!queue.push(4))  // full
        #expect(queue.take(maximum: 2) == [1, 2])
        queue.close()
        #expect(!queue.push(5))  // closed
        #expect(queue.take(maximum: 10) == [3])
        #expect(queue.take(maximum: 10) == nil)
    }
}
