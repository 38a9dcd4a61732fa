/// The bytes of a `text/event-stream` body (WHATWG HTML, "Server-sent events"): each event
/// is `event:`, `id:` and one `data:` line of compact JSON (which holds no line break),
/// ended by a blank line.
enum EventStreamFrames {
    /// How long a client waits before it reconnects, in milliseconds; the first bytes of
    /// every stream.
    static let reconnectDelayMilliseconds = 3000
    static let opening = Array("retry: \(reconnectDelayMilliseconds)\n\n".utf8)
    /// A comment line: it keeps proxies from closing an idle stream, and a write to a peer
    /// that left finds out that it did.
    static let heartbeat = Array(":\n\n".utf8)

    static func event(_ name: String, id: String, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + name.utf8.count + id.utf8.count + 24)
        bytes.append(contentsOf: "event: ".utf8)
        bytes.append(contentsOf: name.utf8)
        bytes.append(contentsOf: "\nid: ".utf8)
        bytes.append(contentsOf: id.utf8)
        bytes.append(contentsOf: "\ndata: ".utf8)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }
}
