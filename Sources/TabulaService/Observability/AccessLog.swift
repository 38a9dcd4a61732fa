import Logging
import TabulaHTTP
import TabulaPlatform

/// Where the service writes its line per request
/// (`GET /v1/screens/settings 200 0.123ms client=127.0.0.1 session=AbCdEfGh`), at `info`.
public struct AccessLog: Sendable {
    /// Where lines go straight, or `nil` for the logger, and the line's start after the
    /// timestamp; both kept alive by `ownedTarget`. Unretained, and used in no closure that
    /// captures a class reference: a retain on every request would pass the output's
    /// reference count's cache line between the cores that serve requests.
    private let output: Unretained<BufferedStandardOutput>?
    /// Never written: the bytes of `ownedTarget`.
    private nonisolated(unsafe) let prefix: UnsafeBufferPointer<UInt8>
    private let ownedTarget: BufferedTarget?

    private init(target: BufferedTarget?) {
        ownedTarget = target
        output = target.map { Unretained($0.output) }
        prefix = target.map { UnsafeBufferPointer($0.prefix) } ?? UnsafeBufferPointer(start: nil, count: 0)
    }

    /// Through the service's logger, whatever its handler.
    public static let logger = AccessLog(target: nil)

    /// Straight into a buffered output, in ``TabulaLogHandler``'s format with this label:
    /// the same line for a fraction of the cost of a swift-log call. `tabula serve` uses it.
    public static func buffered(_ output: BufferedStandardOutput, label: String) -> AccessLog {
        var prefix: [UInt8] = []
        TabulaLogHandler.appendPrefix(level: .info, label: label, metadata: "", source: "TabulaService", to: &prefix)
        return AccessLog(target: BufferedTarget(output: output, prefix: prefix))
    }

    /// Writes a request's line (the caller checked the log level).
    func write(_ summary: borrowing RequestSummary, nanoseconds: Int64, logger: Logger) {
        guard let output else {
            Self.withLine(summary, nanoseconds: nanoseconds, after: UnsafeBufferPointer(start: nil, count: 0)) { line in
                logger.info("\(String(decoding: line, as: UTF8.self))")
            }
            return
        }
        // The prefix goes into the same buffer: one copy into the output, not two.
        Self.withLine(summary, nanoseconds: nanoseconds, after: prefix) { line in
            output.with { $0.writeLine(urgent: false, line) }
        }
    }

    /// A buffered output and the line's start after the timestamp
    /// (`info tabula: [TabulaService] `), in memory of its own for as long as it lives.
    private final class BufferedTarget: Sendable {
        let output: BufferedStandardOutput
        /// Never written after init.
        nonisolated(unsafe) let prefix: UnsafeMutableBufferPointer<UInt8>

        init(output: BufferedStandardOutput, prefix: [UInt8]) {
            self.output = output
            self.prefix = .allocate(capacity: prefix.count)
            _ = self.prefix.initialize(from: prefix)
        }

        deinit {
            prefix.deallocate()
        }
    }

    /// Formats the line on the stack, after `prefix`, and lends it to `body`: this runs for
    /// every request.
    private static func withLine(
        _ summary: borrowing RequestSummary, nanoseconds: Int64, after prefix: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        // The method and the target are the client's bytes: a control character among them
        // is written as an escape (at most six bytes), as every other log line writes one.
        let escapes = summary.method.hasASCIIControlCharacter || summary.path.hasASCIIControlCharacter
        let requestBytes = (summary.method.utf8.count + summary.path.utf8.count) * (escapes ? 6 : 1)
        let capacity = prefix.count + requestBytes + summary.remoteAddress.utf8.count + 64
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var writer = LineWriter(buffer: buffer)
            writer.write(prefix)
            if escapes {
                writer.writeOnOneLine(summary.method)
                writer.write(0x20)
                writer.writeOnOneLine(summary.path)
            } else {
                writer.write(summary.method)
                writer.write(0x20)
                writer.write(summary.path)
            }
            writer.write(0x20)
            writer.writeDecimal(summary.status)
            writer.write(0x20)
            let microseconds = Int(nanoseconds / 1000)
            writer.writeDecimal(microseconds / 1000)
            writer.write(UInt8(ascii: "."))
            let fraction = microseconds % 1000
            writer.write(UInt8(ascii: "0") + UInt8(fraction / 100))
            writer.write(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
            writer.write(UInt8(ascii: "0") + UInt8(fraction % 10))
            writer.write("ms client=" as StaticString)
            writer.write(summary.remoteAddress)
            if let token = summary.logContext {
                // The session token: a prefix tells sessions apart without making logs a key ring.
                writer.write(" session=" as StaticString)
                writer.write(token, limit: SessionToken.logPrefixLength)
            }
            body(UnsafeBufferPointer(rebasing: buffer[0..<writer.count]))
        }
    }
}

/// Writes bytes into a buffer the caller sized; what does not fit is left out.
private struct LineWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    mutating func write(_ byte: UInt8) {
        guard count < buffer.count else { return }
        buffer[count] = byte
        count += 1
    }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        let length = min(bytes.count, buffer.count - count)
        guard length > 0, let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
        (target + count).update(from: source, count: length)
        count += length
    }

    mutating func write(_ text: String, limit: Int = .max) {
        let written = text.utf8.withContiguousStorageIfAvailable { bytes -> Int in
            let length = min(bytes.count, limit, buffer.count - count)
            guard length > 0, let source = bytes.baseAddress, let target = buffer.baseAddress else { return 0 }
            (target + count).update(from: source, count: length)
            return length
        }
        if let written {
            count += written
        } else {
            for byte in text.utf8.prefix(limit) { write(byte) }
        }
    }

    /// Text with its control characters escaped (``TabulaLogHandler/appendOnOneLine(_:to:)``).
    mutating func writeOnOneLine(_ text: String) {
        var escaped: [UInt8] = []
        TabulaLogHandler.appendOnOneLine(text, to: &escaped)
        escaped.withUnsafeBufferPointer { write($0) }
    }

    /// A literal: copied from its static bytes, without String's storage checks.
    mutating func write(_ text: StaticString) {
        let length = min(text.utf8CodeUnitCount, buffer.count - count)
        guard length > 0, let target = buffer.baseAddress else { return }
        (target + count).update(from: text.utf8Start, count: length)
        count += length
    }

    mutating func writeDecimal(_ value: Int) {
        if value >= 10 { writeDecimal(value / 10) }
        write(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
