#if canImport(Glibc)
import Glibc
#endif
import TabulaHTTP

/// Standard output with buffers: lines are appended in memory and written by a background
/// thread every 100 ms, so a request log line costs no system call. Each thread appends to
/// its own buffer (threads never wait for each other's lines), so lines of different threads
/// may come out up to 100 ms out of order; each thread's lines stay in order. Warnings and
/// worse are written at once, and ``flush()`` writes everything (at shutdown). A crash may
/// lose the last 100 ms of informational lines, never a warning.
public final class BufferedStandardOutput: Sendable {
    public static let shared = BufferedStandardOutput()

    /// Lines not yet written, and the current second's timestamp and the space after it
    /// (formatted once a second).
    private struct Pending {
        var bytes: [UInt8] = []
        var second = -1
        var timestamp: [UInt8] = []
    }

    private let shards = ShardedStorage<Pending>(count: 8) { Pending() }
    private let writing = PlainLock()
    private let wakeUp = BlockingQueue<Void>(capacity: 1)

    private init() {
        _ = WorkerThread.start { [self] in
            while wakeUp.take(maximum: 1, timeout: 0.1) != nil { flush() }
        }
    }

    /// Appends one line: the UTC timestamp (`2026-11-22T06:27:24+0000`), a space, what
    /// `body` writes straight into the buffer, and a newline. `urgent` lines are written
    /// at once.
    func writeLine(urgent: Bool, _ body: (inout [UInt8]) -> Void) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = Int(now.tv_sec)
        let large = shards.writeOwn { pending -> Bool in
            if pending.second != second {
                pending.second = second
                pending.timestamp = Timestamp.format(second)
                pending.timestamp.append(0x20)
            }
            pending.bytes.append(contentsOf: pending.timestamp)
            body(&pending.bytes)
            pending.bytes.append(0x0A)
            return pending.bytes.count > 128 * 1024
        }
        if urgent || large { flush() }
    }

    /// Writes everything buffered.
    public func flush() {
        writing.withLock {
            for shard in 0..<shards.count {
                let taken = shards.write(shard) { pending -> [UInt8] in
                    let taken = pending.bytes
                    pending.bytes.removeAll(keepingCapacity: true)
                    return taken
                }
                Self.write(taken)
            }
        }
    }

    private static func write(_ bytes: [UInt8]) {
        var offset = 0
        bytes.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let written = Glibc.write(1, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
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
