import TabulaHTTP
import TabulaPlatform

/// Answers a request refused for its key only after a pause, so that guessing keys costs
/// time: one connection tries a few keys a second, and connections are limited per
/// address and in all. A request with the right key never waits, and a paused refusal holds
/// no thread: its connection is parked, and one thread of this type sends the answers when
/// their time comes. Every refusal waits the same pause, so the queue is in deadline order.
final class KeyRefusalPause: Sendable {
    let pauseNanoseconds: Int64
    private let queue = BlockingQueue<(deadline: Int64, answer: @Sendable () -> Void)>(capacity: Int.max)
    private let thread = Locked<WorkerThread?>(nil)

    init(pauseMilliseconds: Int) {
        pauseNanoseconds = Int64(max(0, pauseMilliseconds)) * 1_000_000
    }

    /// Sends `response` through `responder` once the pause is over; at once when there is
    /// no pause, or after ``close()``.
    func send(_ response: Response, through responder: Responder) {
        answer { responder.send(response) }
    }

    /// Runs `answer` (which sends a refusal) once the pause is over; at once when there is
    /// no pause, or after ``close()``.
    func answer(_ answer: @escaping @Sendable () -> Void) {
        // Without its thread (the system refused one), the answer goes at once.
        guard pauseNanoseconds > 0, startIfNeeded() else { return answer() }
        let deadline = SystemClock.monotonicNanoseconds() + pauseNanoseconds
        if !queue.push((deadline, answer)) { answer() }
    }

    /// Whether the thread runs: started by the first pause.
    private func startIfNeeded() -> Bool {
        thread.withLock { thread in
            guard thread == nil else { return true }
            // One attempt: a request waits for it, under this lock.
            thread = WorkerThread.startIfAllowed(attempts: 1) { [queue] in
                while let due = queue.take(maximum: 64) {
                    for refusal in due {
                        var wait = refusal.deadline - SystemClock.monotonicNanoseconds()
                        while wait > 0 {
                            usleep(UInt32(min(wait / 1000, 500_000)))
                            wait = refusal.deadline - SystemClock.monotonicNanoseconds()
                        }
                        refusal.answer()
                    }
                }
            }
            return thread != nil
        }
    }

    /// Refuses new pauses (their answers go at once), sends those waiting when their time
    /// comes (within one pause) and stops the thread.
    func close() {
        queue.close()
        thread.withLock { $0.take() }?.join()
    }
}
