#if canImport(Glibc)
import Glibc
#endif
import TabulaHTTP

/// Standard output with a buffer: lines are appended in memory and written by a background
/// thread every 100 ms, so a request log line costs no system call. Warnings and worse are
/// written at once, and ``flush()`` writes everything (at shutdown). A crash may lose the
/// last 100 ms of informational lines, never a warning.
public final class BufferedStandardOutput: Sendable {
    public static let shared = BufferedStandardOutput()

    private let buffer = Locked<[UInt8]>([])
    private let writing = Locked<Void>(())
    private let wakeUp = BlockingQueue<Void>(capacity: 1)

    private init() {
        _ = WorkerThread.start { [self] in
            while wakeUp.take(maximum: 1, timeout: 0.1) != nil { flush() }
        }
    }

    /// Appends one line, written by `body` straight into the buffer (a newline follows);
    /// `urgent` lines are written at once.
    func writeLine(urgent: Bool, _ body: (inout [UInt8]) -> Void) {
        let large = buffer.withLock { buffer -> Bool in
            body(&buffer)
            buffer.append(0x0A)
            return buffer.count > 256 * 1024
        }
        if urgent || large { flush() }
    }

    /// Writes everything buffered.
    public func flush() {
        writing.withLock { _ in
            let pending = buffer.withLock { buffer -> [UInt8] in
                let taken = buffer
                buffer.removeAll(keepingCapacity: true)
                return taken
            }
            var offset = 0
            pending.withUnsafeBytes { bytes in
                while offset < bytes.count {
                    let written = Glibc.write(1, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }
}
