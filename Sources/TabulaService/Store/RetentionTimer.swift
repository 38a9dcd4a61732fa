import TabulaPlatform

/// Runs a retention pass every interval on its own thread until stopped.
final class RetentionTimer: @unchecked Sendable {
    private let intervalSeconds: Double
    private let wakeUp = BlockingQueue<Void>(capacity: 1)
    private var thread: WorkerThread?

    init(intervalSeconds: Double) {
        self.intervalSeconds = intervalSeconds
    }

    func start(_ action: @escaping @Sendable () -> Void) {
        guard intervalSeconds > 0 else { return }
        thread = WorkerThread.start { [wakeUp, intervalSeconds] in
            // `take` returns [] on timeout and nil once closed.
            while wakeUp.take(maximum: 1, timeout: intervalSeconds) != nil {
                action()
            }
        }
    }

    func stop() {
        wakeUp.close()
        thread?.join()
        thread = nil
    }
}
