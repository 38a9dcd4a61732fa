internal import CCurl
import TabulaPlatform

/// The client's one thread and what it owns: the multi handle, the transfers in flight and
/// spare easy handles. Other threads only queue requests in ``inbox`` and wake the thread
/// with `curl_multi_wakeup`, the one multi call curl allows from another thread; everything
/// else below runs on the thread (hence `@unchecked Sendable`).
final class TransferLoop: @unchecked Sendable {
    /// What other threads share with the loop.
    private struct Inbox {
        var pending: [PendingTransfer] = []
        var stopping = false
        /// The loop's thread, once it runs: a shutdown from a completion must not join it.
        var thread: pthread_t?
        /// Whether a caller of ``stop(lastReference:)`` has taken on joining the thread.
        var joining = false
        /// Whether the thread must detach itself as it ends: the client went away in a
        /// completion, and no one is left to join it.
        var detachesItself = false
    }

    /// What ``stop(lastReference:)`` asks of its caller.
    enum StopAction {
        /// Join the thread: no earlier call has.
        case join
        /// Nothing: an earlier call joins the thread, or this one runs on it.
        case none
    }

    private let curl: LibCurl
    private let multi: LibCurl.Multi
    private let inbox = Locked(Inbox())
    private let connections = Locked(0)
    private let spareLimit: Int
    /// Transfers in flight, by easy handle (loop thread only).
    private var active: [LibCurl.Easy: Transfer] = [:]
    /// When the loop next looks for transfers silent past their limit (loop thread only).
    private var nextSilenceCheck: Int64 = 0
    /// Reset easy handles for the next transfers (loop thread only). A handle carries curl's
    /// per-transfer state and buffers; reusing it spares making and freeing them for each
    /// request, while connections live in the multi handle's cache either way. At most as
    /// many as transfers can move at once are kept.
    private var spare: [LibCurl.Easy] = []

    init(curl: LibCurl, maxConnections: Int) throws(HTTPClientError) {
        guard let multi = curl.multiInit() else { throw .unavailable("curl_multi_init failed") }
        // The cache keeps as many connections as may be open, and transfers beyond the
        // limit wait inside curl for one of them.
        for (option, value) in [(CURLMOPT_MAXCONNECTS, maxConnections), (CURLMOPT_MAX_TOTAL_CONNECTIONS, maxConnections)] {
            let code = curl.set(multi, option, value)
            guard code == CURLM_OK else {
                _ = curl.multiCleanup(multi)
                throw .unavailable("curl_multi_setopt failed: \(curl.text(code))")
            }
        }
        self.curl = curl
        self.multi = multi
        spareLimit = maxConnections
    }

    /// New connections curl made for the transfers finished so far.
    var connectionsOpened: Int { connections.withLock { $0 } }

    /// Queues a transfer and wakes the loop; `false` once the loop stops.
    func submit(_ transfer: PendingTransfer) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.stopping else { return false }
            inbox.pending.append(transfer)
            // Under the lock, so that no wake-up reaches a multi handle the stopping loop
            // cleans up; and only for the first request queued, for the loop takes them
            // all at once before it waits again.
            if inbox.pending.count == 1 { _ = curl.multiWakeup(multi) }
            return true
        }
    }

    /// Tells the loop to stop: it fails what is queued and in flight, cleans up and ends.
    /// `lastReference`: the client is going away, so no later call can join the thread.
    func stop(lastReference: Bool) -> StopAction {
        inbox.withLock { inbox in
            if !inbox.stopping {
                inbox.stopping = true
                _ = curl.multiWakeup(multi)
            }
            if let thread = inbox.thread, pthread_equal(thread, pthread_self()) != 0 {
                // A completion, which the thread is running: it cannot wait for itself.
                if lastReference { inbox.detachesItself = true }
                return .none
            }
            guard !inbox.joining else { return .none }
            inbox.joining = true
            return .join
        }
    }

    /// The thread's body: waits for sockets, timers or a wake-up, moves the transfers on and
    /// completes the finished ones, until ``stop(lastReference:)``.
    func run() {
        inbox.withLock { $0.thread = pthread_self() }
        while true {
            let (arrived, stopping) = inbox.withLock { inbox in
                defer { inbox.pending = [] }
                return (inbox.pending, inbox.stopping)
            }
            if stopping {
                for pending in arrived { pending.completion(.failure(Self.stopped)) }
                break
            }
            for pending in arrived { start(pending) }
            var running: Int32 = 0
            _ = curl.multiPerform(multi, &running)
            completeFinished()
            endSilentTransfers()
            // Bounded, so that a lost wake-up would delay a request, not strand it. Should
            // the poll itself fail, a short pause keeps the loop from spinning.
            var ready: Int32 = 0
            if curl.multiPoll(multi, nil, 0, 1000, &ready) != CURLM_OK { usleep(10_000) }
        }
        failInFlight()
        for handle in spare { curl.easyCleanup(handle) }
        spare = []
        _ = curl.multiCleanup(multi)
        if inbox.withLock({ $0.detachesItself }) { pthread_detach(pthread_self()) }
    }

    private static let stopped = HTTPClientError.transport("the client stopped")

    private func start(_ pending: PendingTransfer) {
        guard let handle = spare.popLast() ?? curl.easyInit() else {
            pending.completion(.failure(.unavailable("curl_easy_init failed")))
            return
        }
        let transfer = Transfer(completion: pending.completion)
        if let problem = transfer.configure(handle, for: pending.request, curl) {
            recycle(handle, transfer)
            transfer.completion(.failure(problem))
            return
        }
        active[handle] = transfer
        let added = curl.multiAddHandle(multi, handle)
        if added != CURLM_OK {
            active[handle] = nil
            recycle(handle, transfer)
            transfer.completion(.failure(.unavailable("curl_multi_add_handle failed: \(curl.text(added))")))
        }
    }

    private func completeFinished() {
        var left: Int32 = 0
        while let message = curl.multiInfoRead(multi, &left) {
            // The message is curl's until the handle is removed: read it first.
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            guard let transfer = active.removeValue(forKey: handle) else { continue }
            _ = curl.multiRemoveHandle(multi, handle)
            let outcome = transfer.outcome(handle, code, curl)
            let opened = curl.info(handle, CURLINFO_NUM_CONNECTS) ?? 0
            if opened > 0 { connections.withLock { $0 += opened } }
            recycle(handle, transfer)
            transfer.completion(outcome)
        }
    }

    /// Ends the transfers timed by their silence that have heard nothing for too long, as
    /// timed out. It looks twice a second at most (not on every pass, which each call's
    /// wake-up makes), and the poll below wakes the loop at least once a second: a silent
    /// transfer ends within a second and a half of its limit.
    private func endSilentTransfers() {
        let now = SystemClock.monotonicNanoseconds()
        guard now >= nextSilenceCheck else { return }
        nextSilenceCheck = now + 500_000_000
        for (handle, transfer) in active where transfer.isSilent(at: now) {
            active[handle] = nil
            _ = curl.multiRemoveHandle(multi, handle)
            recycle(handle, transfer)
            transfer.completion(.failure(.timedOut))
        }
    }

    private func failInFlight() {
        let transfers = active
        active = [:]
        for (handle, transfer) in transfers {
            _ = curl.multiRemoveHandle(multi, handle)
            curl.easyCleanup(handle)
            transfer.release(curl)
            transfer.completion(.failure(Self.stopped))
        }
    }

    /// Keeps the handle for a later transfer (or cleans it up), then frees what the transfer
    /// lent curl: the handle no longer points at it.
    private func recycle(_ handle: LibCurl.Easy, _ transfer: Transfer) {
        if spare.count < spareLimit {
            curl.easyReset(handle)
            spare.append(handle)
        } else {
            curl.easyCleanup(handle)
        }
        transfer.release(curl)
    }
}
