/// A joinable thread running one closure.
public final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: @Sendable () -> Void

    private init(body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    /// Starts `body` on a new thread.
    public static func start(_ body: @escaping @Sendable () -> Void) -> WorkerThread {
        let worker = WorkerThread(body: body)
        let retained = Unmanaged.passRetained(worker)
        pthread_create(
            &worker.thread, nil,
            { argument in
                guard let argument else { return nil }
                let worker = Unmanaged<WorkerThread>.fromOpaque(argument).takeRetainedValue()
                worker.body()
                return nil
            }, retained.toOpaque())
        return worker
    }

    /// Waits for the thread to finish.
    public func join() {
        pthread_join(thread, nil)
    }

    /// Lets the thread finish on its own, with no one waiting for it (and nothing of it left
    /// once it has); it may not be joined after.
    public func detach() {
        pthread_detach(thread)
    }
}
