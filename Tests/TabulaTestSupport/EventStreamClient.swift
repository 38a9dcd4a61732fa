/// One event of a `text/event-stream` body, parsed as the WHATWG specification's
/// "interpret an event stream" does (fields `event`, `data`, `id`, `retry`; comment lines
/// start with a colon), except that a block of comments alone is returned too, as a
/// heartbeat, so that tests can see them.
public struct ServerSentEvent: Sendable, Equatable {
    public var event: String?
    public var data: String?
    public var id: String?
    public var retry: Int?
    public var comments: [String] = []
    /// How many `data:` lines the event had.
    public var dataLines = 0

    public init() {}

    /// Whether the block held comments only.
    public var isHeartbeat: Bool { event == nil && data == nil && id == nil && retry == nil && !comments.isEmpty }
}

/// A streamed response read event by event over a raw connection: the test sees every
/// byte the server sent (framing, comments, the end of the stream).
public final class EventStreamClient {
    public let connection: RawHTTPConnection
    public let head: RawHTTPResponse
    private var pending: [UInt8] = []
    /// Whether the server ended the body (its last chunk came).
    public private(set) var ended = false

    /// Sends a GET and reads the answer's head; the body is left for ``next()``.
    public init(port: UInt16, path: String, headers: [String] = [], timeout: Double = 5) throws {
        connection = try RawHTTPConnection(port: port, timeout: timeout)
        try connection.send(getRequest(path, headers: headers))
        head = try connection.readResponseHead()
    }

    /// The next event block; `nil` once the stream ended.
    public func next() throws -> ServerSentEvent? {
        while true {
            if let block = takeBlock() { return Self.parse(block) }
            guard !ended, let chunk = try connection.readChunk() else {
                ended = true
                return nil
            }
            pending.append(contentsOf: chunk)
        }
    }

    /// The next named event (not a heartbeat, nor the opening `retry:`); `nil` once the
    /// stream ended.
    public func nextEvent() throws -> ServerSentEvent? {
        while let event = try next() {
            if event.event != nil { return event }
        }
        return nil
    }

    /// A block ended by a blank line (`\n\n`), without it.
    private func takeBlock() -> [UInt8]? {
        guard pending.count >= 2 else { return nil }
        for index in 1..<pending.count where pending[index] == 10 && pending[index - 1] == 10 {
            let block = Array(pending[0..<(index - 1)])
            pending.removeFirst(index + 1)
            return block
        }
        return nil
    }

    /// One event block (without its blank line), parsed.
    public static func parse(_ block: [UInt8]) -> ServerSentEvent {
        var event = ServerSentEvent()
        for line in block.split(separator: 10, omittingEmptySubsequences: false) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix(":") {
                event.comments.append(String(text.dropFirst()))
                continue
            }
            let name: Substring
            var value: Substring = ""
            if let colon = text.firstIndex(of: ":") {
                name = text[..<colon]
                value = text[text.index(after: colon)...]
                if value.hasPrefix(" ") { value = value.dropFirst() }
            } else {
                name = Substring(text)
            }
            switch name {
            case "event": event.event = String(value)
            case "data":
                event.data = event.data.map { $0 + "\n" + value } ?? String(value)
                event.dataLines += 1
            case "id": event.id = String(value)
            case "retry": event.retry = Int(value)
            default: break
            }
        }
        return event
    }
}
