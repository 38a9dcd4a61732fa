public import Logging
import TabulaHTTP
import TabulaPlatform

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
        let message = event.message.description
        output.writeLine(urgent: event.level >= .warning) { buffer in
            Self.appendPrefix(level: event.level, label: label, metadata: metadataText, source: event.source, to: &buffer)
            Self.appendOnOneLine(message, to: &buffer)
        }
    }

    /// Appends `text` with its control characters written as escapes (`\n`, `\u{1B}`):
    /// messages and metadata carry text from outside (a backend's answer, a definition), and
    /// a line break in it would start a line the service never wrote.
    static func appendOnOneLine(_ text: String, to buffer: inout [UInt8]) {
        guard text.hasASCIIControlCharacter else {
            buffer.append(contentsOf: text.utf8)
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\n"): buffer.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): buffer.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): buffer.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20, 0x7F: buffer.append(contentsOf: "\\u{\(String(byte, radix: 16, uppercase: true))}".utf8)
            default: buffer.append(byte)
            }
        }
    }

    /// What precedes a message after the timestamp: `info tabula: key=value [Module] `.
    static func appendPrefix(level: Logger.Level, label: String, metadata: String, source: String, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: level.rawValue.utf8)
        buffer.append(0x20)
        buffer.append(contentsOf: label.utf8)
        buffer.append(UInt8(ascii: ":"))
        appendOnOneLine(metadata, to: &buffer)
        buffer.append(contentsOf: " [".utf8)
        buffer.append(contentsOf: source.utf8)
        buffer.append(contentsOf: "] ".utf8)
    }
}
