import Logging
import TabulaHTTP

/// Where the service writes its line per request
/// (`GET /v1/screens/settings 200 0.123ms client=127.0.0.1 session=AbCdEfGh`), at `info`.
public struct AccessLog: Sendable {
    private enum Destination: Sendable {
        case logger
        /// The output, and the line's start after the timestamp (`info tabula: [TabulaService] `).
        case buffered(BufferedStandardOutput, prefix: [UInt8])
    }

    private let destination: Destination

    /// Through the service's logger, whatever its handler.
    public static let logger = AccessLog(destination: .logger)

    /// Straight into a buffered output, in ``TabulaLogHandler``'s format with this label:
    /// the same line for a fraction of the cost of a swift-log call. `tabula serve` uses it.
    public static func buffered(_ output: BufferedStandardOutput, label: String) -> AccessLog {
        var prefix: [UInt8] = []
        TabulaLogHandler.appendPrefix(level: .info, label: label, metadata: "", source: "TabulaService", to: &prefix)
        return AccessLog(destination: .buffered(output, prefix: prefix))
    }

    /// Writes a request's line (the caller checked the log level).
    func write(_ summary: RequestSummary, nanoseconds: Int64, logger: Logger) {
        switch destination {
        case .logger:
            var line: [UInt8] = []
            Self.append(summary, nanoseconds: nanoseconds, to: &line)
            logger.info("\(String(decoding: line, as: UTF8.self))")
        case .buffered(let output, let prefix):
            output.writeLine(urgent: false) { buffer in
                buffer.append(contentsOf: prefix)
                Self.append(summary, nanoseconds: nanoseconds, to: &buffer)
            }
        }
    }

    /// The line's text, formatted on the stack and appended in one copy: this runs for
    /// every request.
    static func append(_ summary: RequestSummary, nanoseconds: Int64, to line: inout [UInt8]) {
        let capacity = summary.method.utf8.count + summary.path.utf8.count + summary.remoteAddress.utf8.count + 64
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var writer = LineWriter(buffer: buffer)
            writer.write(summary.method)
            writer.write(0x20)
            writer.write(summary.path)
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
            line.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<writer.count]))
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
