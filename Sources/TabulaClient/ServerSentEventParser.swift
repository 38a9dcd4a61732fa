/// One event of a `text/event-stream`, as the WHATWG HTML standard's parsing rules give it.
struct ServerSentEvent: Hashable, Sendable {
    var type: String
    var data: String
    /// The stream's last event id once this event was read (it carries over events without one).
    var lastEventID: String
}

/// Reads a `text/event-stream` chunk by chunk, however the chunks split its lines: lines end
/// with CRLF, LF or CR; `:` starts a comment; an empty line dispatches the event. `retry:`
/// sets the reconnection time, reported on its own.
///
/// An event is bounded: a stream whose event (its lines so far, the line being read
/// included) outgrows ``maxEventBytes`` is reported as ``Output/overflow`` and read no
/// further, so that a line without an end cannot take the client's memory.
struct ServerSentEventParser: Sendable {
    enum Output: Hashable, Sendable {
        case event(ServerSentEvent)
        case retry(milliseconds: Int)
        /// The event being read outgrew ``maxEventBytes``: the stream is not to be trusted.
        case overflow
    }

    /// The most bytes an event may take unless told: as large as the largest screen a
    /// client reads (the service's state limits go up to 64 MiB).
    static let defaultMaxEventBytes = 64 << 20
    /// The most bytes an event may take.
    let maxEventBytes: Int

    /// Lines read to their end so far, comments (a heartbeat) included: what says the
    /// stream is alive, where bytes alone could be a line that never ends.
    private(set) var linesRead = 0
    /// Whether the stream overflowed; it reads nothing more.
    private(set) var overflowed = false
    /// The bytes of the event being read: its data lines and the line being read.
    private var eventBytes = 0

    private var line: [UInt8] = []
    private var lastByteWasCR = false
    private var isFirstLine = true
    private var type = ""
    private var data: [String] = []
    private var hasData = false
    private var lastEventID = ""

    init(maxEventBytes: Int = Self.defaultMaxEventBytes) {
        self.maxEventBytes = maxEventBytes
    }

    /// Feeds bytes in; returns what they completed.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Output] {
        var outputs: [Output] = []
        guard !overflowed else { return outputs }
        for byte in bytes {
            eventBytes += 1
            if eventBytes > maxEventBytes {
                overflowed = true
                line = []
                data = []
                outputs.append(.overflow)
                return outputs
            }
            if lastByteWasCR {
                lastByteWasCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\r"):
                lastByteWasCR = true
                finishLine(into: &outputs)
            case UInt8(ascii: "\n"):
                finishLine(into: &outputs)
            default:
                line.append(byte)
            }
        }
        return outputs
    }

    private mutating func finishLine(into outputs: inout [Output]) {
        defer { line.removeAll(keepingCapacity: true) }
        linesRead += 1
        if isFirstLine {
            isFirstLine = false
            // A byte order mark may open the stream.
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        guard !line.isEmpty else {
            dispatch(into: &outputs)
            return
        }
        if line.first == UInt8(ascii: ":") {
            eventBytes -= line.count
            return
        }
        let field: String
        var value: Substring
        let text = String(decoding: line, as: UTF8.self)
        if let colon = text.firstIndex(of: ":") {
            field = String(text[..<colon])
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = text
            value = ""
        }
        switch field {
        case "event": type = String(value)
        case "data":
            data.append(String(value))
            hasData = true
        case "id":
            if !value.contains("\0") { lastEventID = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }), let milliseconds = Int(value) {
                outputs.append(.retry(milliseconds: milliseconds))
            }
        default:
            break
        }
    }

    private mutating func dispatch(into outputs: inout [Output]) {
        defer {
            type = ""
            data = []
            hasData = false
            eventBytes = 0
        }
        guard hasData else { return }
        outputs.append(.event(ServerSentEvent(type: type.isEmpty ? "message" : type, data: data.joined(separator: "\n"), lastEventID: lastEventID)))
    }
}
