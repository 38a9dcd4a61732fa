#if canImport(Glibc)
import Glibc
#endif
public import Logging
import TabulaHTTP

/// swift-log's handler for `tabula serve`: the same line format as StreamLogHandler
/// (`2026-11-22T06:27:24+0000 info tabula: key=value [Module] message`), timestamps in UTC
/// formatted once per second, written through ``BufferedStandardOutput``.
public struct TabulaLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: BufferedStandardOutput

    public init(label: String, level: Logger.Level, output: BufferedStandardOutput = .shared) {
        self.label = label
        logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var metadataText = ""
        if !metadata.isEmpty || metadataProvider != nil || !(event.metadata?.isEmpty ?? true) {
            var merged = metadata
            if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
            if let extra = event.metadata { merged.merge(extra) { _, new in new } }
            for key in merged.keys.sorted() {
                if let value = merged[key] { metadataText += " \(key)=\(value)" }
            }
        }
        let timestamp = Timestamp.current()
        let message = event.message.description
        let source = event.source
        output.writeLine(urgent: event.level >= .warning) { buffer in
            buffer.append(contentsOf: timestamp.utf8)
            buffer.append(0x20)
            buffer.append(contentsOf: event.level.rawValue.utf8)
            buffer.append(0x20)
            buffer.append(contentsOf: label.utf8)
            buffer.append(UInt8(ascii: ":"))
            buffer.append(contentsOf: metadataText.utf8)
            buffer.append(contentsOf: " [".utf8)
            buffer.append(contentsOf: source.utf8)
            buffer.append(contentsOf: "] ".utf8)
            buffer.append(contentsOf: message.utf8)
        }
    }
}

/// The current second formatted as `2026-11-22T06:27:24+0000`, cached for the second.
enum Timestamp {
    private static let cache = Locked<(second: Int, text: String)>((-1, ""))

    static func current() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = Int(now.tv_sec)
        if let cached = cache.withLock({ $0.second == second ? $0.text : nil }) { return cached }
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))+0000"
        cache.withLock { $0 = (second, text) }
        return text
    }
}
