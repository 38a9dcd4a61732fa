import Synchronization

/// A few threads of the service's own that run jobs in the order they come: where work
/// that arrives on another component's thread (a store's writer, a database pool)
/// continues, so that the component's thread goes back to its own work at once.
public final class WorkerPool: Sendable {
    private let queue = BlockingQueue<@Sendable () -> Void>(capacity: Int.max)
    private let threads = Locked<[WorkerThread]>([])
    /// The pool's threads, as `pthread_self()` gives them.
    private let identities = Locked<[pthread_t]>([])

    /// Starts `count` threads (at least one).
    public init(threads count: Int) {
        let started = (0..<max(1, count)).map { _ in
            WorkerThread.start { [queue, identities] in
                identities.withLock { $0.append(pthread_self()) }
                while let jobs = queue.take(maximum: 16) {
                    for job in jobs { job() }
                }
            }
        }
        threads.withLock { $0 = started }
    }

    /// Runs `job` on one of the pool's threads; on the calling thread once the pool is closed.
    public func run(_ job: @escaping @Sendable () -> Void) {
        if !queue.push(job) { job() }
    }

    /// Whether the calling thread is one of the pool's.
    public var runsCurrentThread: Bool {
        let current = pthread_self()
        return identities.withLock { $0.contains { pthread_equal($0, current) != 0 } }
    }

    /// Runs the jobs queued, then stops the threads.
    public func close() {
        queue.close()
        let stopping = threads.withLock { threads -> [WorkerThread] in
            defer { threads = [] }
            return threads
        }
        for thread in stopping { thread.join() }
    }
}

/// Tells whether a completion handler runs before the call that was given it returned, on
/// the same thread (a store that answers from memory), or later, on another thread.
public final class CallTracker: Sendable {
    private let state = Atomic<Int>(0)
    private let caller: pthread_t

    /// Made just before the call, on the calling thread.
    public init() {
        caller = pthread_self()
    }

    /// Whether the completion is running inside the call, on the calling thread.
    public var isInsideCall: Bool {
        state.load(ordering: .acquiring) == 0 && pthread_equal(caller, pthread_self()) != 0
    }

    /// The call returned: a completion from now on runs later.
    public func callReturned() {
        state.store(1, ordering: .releasing)
    }
}
