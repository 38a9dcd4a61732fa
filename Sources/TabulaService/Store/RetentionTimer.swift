import TabulaPlatform

/// Runs a store's retention pass every interval on its own thread until stopped, or until
/// the store is gone: it holds the store weakly, and a store dropped without `close` (as
/// tests do) drops its timer, whose thread then ends at once, detached.
final class RetentionTimer: @unchecked Sendable {
    private let intervalSeconds: Double
    private let wakeUp = BlockingQueue<Void>(capacity: 1)
    private var thread: WorkerThread?

    init(intervalSeconds: Double) {
        self.intervalSeconds = intervalSeconds
    }

    func start<Store: SessionStore & AnyObject>(removingExpiredFrom store: Store) {
        guard intervalSeconds > 0 else { return }
        thread = WorkerThread.start { [wakeUp, intervalSeconds, weak store] in
            // `take` returns [] on timeout and nil once closed.
            while wakeUp.take(maximum: 1, timeout: intervalSeconds) != nil {
                guard let store else { return }
                store.removeExpired { _ in }
            }
        }
    }

    func stop() {
        wakeUp.close()
        thread?.join()
        thread = nil
    }

    deinit {
        wakeUp.close()
        thread?.detach()
    }
}
