import TabulaPlatform
import Testing

@testable import TabulaService

/// The turns of one session's writers: one at a time, in order, however they end.
@Suite struct SessionTurnsTests {
    /// Turns that end later, on other threads, from writers on several threads: never two
    /// of one session at once, each writer's in its order, and every turn runs.
    @Test func oneTurnAtATimeInOrder() {
        let turns = SessionTurns()
        let session = SessionName.token("session-a")
        let running = Locked(0)
        let overlaps = Locked(0)
        let started = Locked<[Int: [Int]]>([:])
        let ended = BlockingQueue<Void>()
        let threads = Locked<[WorkerThread]>([])
        let writers = 4
        let perWriter = 200
        concurrently(writers) { writer in
            for index in 0..<perWriter {
                turns.take(session) { done in
                    running.withLock { count in
                        count += 1
                        if count > 1 { overlaps.withLock { $0 += 1 } }
                    }
                    started.withLock { $0[writer, default: []].append(index) }
                    let thread = WorkerThread.start {
                        usleep(UInt32.random(in: 0...200))
                        running.withLock { $0 -= 1 }
                        done()
                        _ = ended.push(())
                    }
                    threads.withLock { $0.append(thread) }
                }
            }
        }
        var count = 0
        while count < writers * perWriter, let batch = ended.take(maximum: 1000, timeout: 10), !batch.isEmpty { count += batch.count }
        #expect(count == writers * perWriter)
        for thread in threads.withLock({ $0 }) { thread.join() }
        #expect(overlaps.withLock { $0 } == 0)
        for writer in 0..<writers {
            #expect(started.withLock { $0[writer] } == Array(0..<perWriter))
        }
    }

    /// The thread that ends a turn runs at most `turnsInARow` of the turns waiting after it;
    /// the rest of the queue goes on elsewhere, in order. A connection thread that began a
    /// busy session's queue goes back to its own connections.
    @Test func aLongQueueIsHandedOnNotRunByOneThread() {
        let pool = WorkerPool(threads: 2)
        defer { pool.close() }
        let turns = SessionTurns(handOff: pool.run)
        let session = SessionName.id("s_busy")
        let release = Locked<(@Sendable () -> Void)?>(nil)
        turns.take(session) { done in release.withLock { $0 = done } }
        let order = Locked<[Int]>([])
        let onThisThread = Locked(0)
        let this = pthread_self()
        let finished = BlockingQueue<Void>()
        let count = 200
        for index in 0..<count {
            turns.take(session) { done in
                order.withLock { $0.append(index) }
                if pthread_equal(pthread_self(), this) != 0 { onThisThread.withLock { $0 += 1 } }
                done()
                if index == count - 1 { _ = finished.push(()) }
            }
        }
        release.withLock { $0 }?()
        #expect(finished.take(maximum: 1, timeout: 60)?.isEmpty == false)
        #expect(onThisThread.withLock { $0 } == SessionTurns.turnsInARow)
        #expect(order.withLock { $0 } == Array(0..<count))
    }

    /// A long queue of turns that end before they return is run in a loop, not by
    /// recursion; another session's turns are not held up meanwhile.
    @Test func turnsThatEndAtOnceDoNotRecurse() {
        let turns = SessionTurns()
        let session = SessionName.id("s_busy")
        let release = Locked<(@Sendable () -> Void)?>(nil)
        turns.take(session) { done in release.withLock { $0 = done } }
        let ran = Locked(0)
        for _ in 0..<100_000 {
            turns.take(session) { done in
                ran.withLock { $0 += 1 }
                done()
            }
        }
        #expect(ran.withLock { $0 } == 0)
        let other = Locked(false)
        turns.take(.id("s_other")) { done in
            other.withLock { $0 = true }
            done()
        }
        #expect(other.withLock { $0 })
        release.withLock { $0 }?()
        #expect(ran.withLock { $0 } == 100_000)
        // The session is free again: a new turn runs at once.
        let again = Locked(false)
        turns.take(session) { done in
            again.withLock { $0 = true }
            done()
        }
        #expect(again.withLock { $0 })
    }
}
