import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server on loopback whose answers a test writes byte for byte: a service that
/// misbehaves (a body that never ends, a line without an end, an answer that is not what it
/// says), for the real client transports to meet. Each connection gets one answer and is
/// closed (a streamed body ends with the connection).
public final class ScriptedServer: @unchecked Sendable {
    /// A request as it arrived.
    public struct Request: Sendable {
        public var method: String
        public var target: String
        public var headers: [String: String]
        public var body: [UInt8]

        /// The target without its query.
        public var path: String { String(target.prefix { $0 != "?" }) }
    }

    /// What the server answers.
    public enum Answer: Sendable {
        /// A status, a content type and a body, with its `Content-Length`.
        case whole(status: Int, contentType: String, body: [UInt8])
        /// A status and a content type, then whatever `write` sends, until it returns or the
        /// client goes away (`write` then answers `false`); no length, the connection's end ends it.
        case streamed(status: Int, contentType: String, write: @Sendable (_ send: @Sendable ([UInt8]) -> Bool) -> Void)

        /// These bytes, head and all, as they are.
        case raw([UInt8])

        public static func json(_ text: String, status: Int = 200) -> Answer {
            .whole(status: status, contentType: "application/json", body: Array(text.utf8))
        }
    }

    public let port: UInt16
    private let listener: Int32
    private let respond: @Sendable (Request) -> Answer
    private let log = NSLock()
    private var requests: [Request] = []

    public init(_ respond: @escaping @Sendable (Request) -> Answer) throws {
        self.respond = respond
        (listener, port) = try LoopbackListener.open(backlog: 64)
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// Stops accepting; answers being written go on until their clients go. The accepting
    /// thread closes the socket as it ends, so that its number is not taken by another
    /// test's socket while the thread may still accept on it.
    public func close() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// Every request answered so far, in order of arrival.
    public var received: [Request] { log.withLock { requests } }

    /// The requests so far whose method and path are these.
    public func count(_ method: String, _ path: String) -> Int {
        received.filter { $0.method == method && $0.path == path }.count
    }

    private func acceptConnections() {
        defer { Glibc.close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                // A connection that went before it was taken, or a signal: go on. Anything
                // else (the socket shut down) ends the server.
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            Thread.detachNewThread { [self] in
                defer { Glibc.close(client) }
                guard let request = Self.readRequest(client) else { return }
                log.withLock { requests.append(request) }
                answer(respond(request), on: client)
            }
        }
    }

    private func answer(_ answer: Answer, on client: Int32) {
        let transmit: @Sendable ([UInt8]) -> Bool = { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes { raw in
                    raw.baseAddress.map { Glibc.send(client, $0 + offset, raw.count - offset, Int32(MSG_NOSIGNAL)) } ?? -1
                }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
        switch answer {
        case .whole(let status, let contentType, let body):
            let head = "HTTP/1.1 \(status) Scripted\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            _ = transmit(Array(head.utf8) + body)
        case .raw(let bytes):
            _ = transmit(bytes)
        case .streamed(let status, let contentType, let write):
            let head = "HTTP/1.1 \(status) Scripted\r\nContent-Type: \(contentType)\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
            guard transmit(Array(head.utf8)) else { return }
            write(transmit)
        }
        shutdown(client, Int32(SHUT_RDWR))
    }

    /// The request's head and its `Content-Length` body; `nil` when the client went first.
    private static func readRequest(_ client: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var headEnd: Int?
        while headEnd == nil {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
            headEnd = bytes.indices.dropLast(3).first { bytes[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }
        }
        guard let headEnd else { return nil }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Array(bytes[(headEnd + 4)...])
        while body.count < length {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            body += buffer[..<count]
        }
        return Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
    }
}
