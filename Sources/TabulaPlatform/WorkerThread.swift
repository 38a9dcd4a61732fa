/// A joinable thread running one closure.
public final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: @Sendable () -> Void

    private init(body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    /// Starts `body` on a new thread, a part of the process that it cannot serve without.
    ///
    /// These threads start while the process starts its parts (no request, definition or
    /// database reaches this): one the system refuses even after a moment ends the process
    /// with the reason, rather than leave a part without its thread and a join of nothing.
    public static func start(_ body: @escaping @Sendable () -> Void) -> WorkerThread {
        guard let worker = startIfAllowed(body) else {
            let reason = "tabula: cannot start a thread: \(String(cString: strerror(errno))); raise the limit on processes (ulimit -u) or free memory\n"
            _ = reason.withCString { write(2, $0, strlen($0)) }
            exit(71)  // EX_OSERR
        }
        return worker
    }

    /// Starts `body` on a new thread; `nil` (with `errno` set) when the system refuses one
    /// in `attempts`, 10 ms apart: for a thread started while serving, whose caller can do
    /// without (and, serving, should not wait: one attempt).
    public static func startIfAllowed(attempts: Int = 10, _ body: @escaping @Sendable () -> Void) -> WorkerThread? {
        let worker = WorkerThread(body: body)
        let retained = Unmanaged.passRetained(worker)
        var result: Int32 = 0
        for attempt in 0..<max(1, attempts) {
            if attempt > 0 { usleep(10_000) }
            result = pthread_create(
                &worker.thread, nil,
                { argument in
                    guard let argument else { return nil }
                    let worker = Unmanaged<WorkerThread>.fromOpaque(argument).takeRetainedValue()
                    worker.body()
                    return nil
                }, retained.toOpaque())
            // EAGAIN: the system's or the user's limit on threads, which may pass.
            guard result == EAGAIN else { break }
        }
        guard result == 0 else {
            retained.release()
            errno = result
            return nil
        }
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
