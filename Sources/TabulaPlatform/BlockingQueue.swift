/// A FIFO of jobs for worker threads: producers never block (unless the queue is full,
/// when `push` refuses), consumers wait for work and may take it in batches.
public final class BlockingQueue<Job>: @unchecked Sendable {
    /// Allocated, not stored inline: the address of a class's stored property is an inout
    /// access, which Swift does not promise stays put and ThreadSanitizer reports (as for
    /// ``PlainLock``).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Taken jobs are set to `nil` at once, so that what they hold is freed when they run,
    /// not when the array is next compacted.
    private var jobs: [Job?] = []
    private var head = 0
    private var closed = false
    public let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        // Timed waits count on the monotonic clock: a wall clock set back an hour would
        // otherwise hold every timed `take` (the heartbeats, the log's flushes) that long.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Adds a job; `false` when the queue is full or closed.
    public func push(_ job: Job) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !closed, jobs.count - head < capacity else { return false }
        jobs.append(job)
        pthread_cond_signal(condition)
        return true
    }

    /// Waits for at least one job (or up to `timeout` seconds) and takes up to `maximum`.
    /// Returns `nil` once the queue is closed and drained.
    public func take(maximum: Int, timeout: Double? = nil) -> [Job]? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        // One deadline for the whole wait: a wake-up that finds no job (another consumer
        // took it, or none came) waits for what is left of it, not for `timeout` again.
        var deadline = timespec()
        if let timeout {
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let nanoseconds = Int(deadline.tv_nsec) + Int(max(0, timeout) * 1_000_000_000)
            deadline.tv_sec += nanoseconds / 1_000_000_000
            deadline.tv_nsec = nanoseconds % 1_000_000_000
        }
        while jobs.count == head && !closed {
            if timeout != nil {
                if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return [] }
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
        guard jobs.count > head else { return nil }
        let end = min(jobs.count, head + maximum)
        var batch: [Job] = []
        batch.reserveCapacity(end - head)
        for index in head..<end {
            if let job = jobs[index] { batch.append(job) }
            jobs[index] = nil
        }
        head = end
        if head > 1024 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return batch
    }

    /// Jobs waiting.
    var count: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return jobs.count - head
    }

    /// Refuses new jobs; consumers drain what is queued, then get `nil`.
    public func close() {
        pthread_mutex_lock(mutex)
        closed = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
