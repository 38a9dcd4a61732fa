import TabulaHTTP
import TabulaPlatform

/// Standard output with buffers: lines are appended in memory and written by a background
/// thread every 100 ms (or by their own thread once it has 16 KiB of them), so a request log
/// line costs no system call. Each thread appends to its own buffer (threads never wait for
/// each other's lines), so lines of different threads may come out up to 100 ms out of
/// order; each thread's lines stay in order. Warnings and worse are written at once, and
/// ``flush()`` writes everything (at shutdown). A crash may lose the last 100 ms of
/// informational lines, never a warning.
public final class BufferedStandardOutput: Sendable {
    public static let shared = BufferedStandardOutput(fileDescriptor: 1)

    /// A thread writes its own lines out once they reach this many bytes. Each thread has
    /// two buffers that take turns (one filled while the other is written), so writing out
    /// allocates nothing: buffers allocated anew at every write were each a fresh mapping of
    /// memory, faulted in page by page and unmapped again. Two buffers of the threshold per
    /// thread are held at most.
    private let thresholdBytes: Int

    /// Lines not yet written; the buffer written last, emptied, to be appended to next; and
    /// the current second's timestamp and the space after it (formatted once a second).
    private struct Pending {
        var bytes: [UInt8] = []
        var spare: [UInt8] = []
        var second = -1
        var timestamp: [UInt8] = []
    }

    private let fileDescriptor: Int32
    private let shards = ShardedStorage<Pending>(perThread: { Pending() })
    /// Held while lines are written, so that a shard's lines come out in order.
    private let writing = PlainLock()
    /// Never given a job: the background writer waits on it for its interval, until closed.
    private let ticks = BlockingQueue<Void>(capacity: 1)
    private let writer = Locked<WorkerThread?>(nil)

    /// Lines for `fileDescriptor`, written at least every `interval` seconds until ``close()``,
    /// and by the thread that wrote them once they reach `thresholdBytes`.
    init(fileDescriptor: Int32, interval: Double = 0.1, thresholdBytes: Int = 16 * 1024) {
        self.fileDescriptor = fileDescriptor
        self.thresholdBytes = thresholdBytes
        let thread = WorkerThread.start { [self] in
            while ticks.take(maximum: 1, timeout: interval) != nil { flush() }
            flush()
        }
        writer.withLock { $0 = thread }
    }

    /// Appends one line: the UTC timestamp (`2026-11-22T06:27:24+0000`), a space, what
    /// `body` writes straight into the buffer, and a newline. `urgent` lines are written
    /// at once.
    func writeLine(urgent: Bool, _ body: (inout [UInt8]) -> Void) {
        let second = Int(SystemClock.coarseWallNanoseconds() / 1_000_000_000)
        let shard = ThreadSlot.current
        // A local, so that the closure below captures no reference to this shared object.
        let thresholdBytes = thresholdBytes
        let full = shards.write(shard) { pending -> Bool in
            if pending.second != second {
                pending.second = second
                pending.timestamp = Timestamp.format(second)
                pending.timestamp.append(0x20)
            }
            pending.bytes.append(contentsOf: pending.timestamp)
            body(&pending.bytes)
            pending.bytes.append(0x0A)
            return pending.bytes.count >= thresholdBytes
        }
        if urgent {
            flush()
        } else if full {
            writing.withLock { writeOut(shard) }
        }
    }

    /// ``writeLine(urgent:_:)`` for a line already formatted (the access log's).
    func writeLine(urgent: Bool, _ line: UnsafeBufferPointer<UInt8>) {
        writeLine(urgent: urgent) { $0.append(contentsOf: line) }
    }

    /// Writes everything buffered.
    public func flush() {
        writing.withLock {
            for shard in 0..<shards.count { writeOut(shard) }
        }
    }

    /// Writes everything and stops the background writer (for outputs other than `shared`,
    /// which lives as long as the process).
    func close() {
        ticks.close()
        writer.withLock { thread in
            thread?.join()
            thread = nil
        }
    }

    /// Takes a shard's lines, leaving it the spare buffer to append to, writes them, and
    /// gives the emptied buffer back as the next spare. Runs under `writing`.
    private func writeOut(_ shard: Int) {
        var taken = shards.write(shard) { pending -> [UInt8] in
            guard !pending.bytes.isEmpty else { return [] }
            var taken: [UInt8] = []
            swap(&taken, &pending.bytes)
            swap(&pending.bytes, &pending.spare)
            return taken
        }
        guard !taken.isEmpty else { return }
        write(taken)
        taken.removeAll(keepingCapacity: true)
        shards.write(shard) { pending in pending.spare = taken }
    }

    private func write(_ bytes: [UInt8]) {
        var offset = 0
        bytes.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let written = Glibc.write(fileDescriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// Log timestamps: a second as `2026-11-22T06:27:24+0000`, in UTC.
enum Timestamp {
    static func format(_ second: Int) -> [UInt8] {
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))+0000"
        return Array(text.utf8)
    }
}
