#if canImport(Glibc)
    import Glibc
#endif

/// A failure of the raw test client.
public struct RawHTTPError: Error, CustomStringConvertible {
    public var description: String
    /// The server sent nothing within the connection's timeout (it did not close).
    public var isTimeout = false
    public init(_ description: String, isTimeout: Bool = false) {
        self.description = description
        self.isTimeout = isTimeout
    }
}

/// An HTTP/1.x response as it came off the wire.
public struct RawHTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// One TCP connection driven byte by byte, for tests that must see what HTTP clients
/// hide: connection reuse and closing, malformed framing, slow senders.
public final class RawHTTPConnection {
    public let descriptor: Int32
    private var buffered: [UInt8] = []

    /// Connects to 127.0.0.1:port (or `host`), optionally from a given source address
    /// (any 127.x.y.z works on loopback), waiting at most `timeout` seconds per read.
    public init(port: UInt16, host: String = "127.0.0.1", sourceAddress: String? = nil, timeout: Double = 5) throws {
        // The descriptor is stored only once connected. An initializer that throws after
        // every stored property is set still runs deinit, which would close the descriptor
        // a second time: by then another thread may have been given the same number, and
        // its connection would be closed under it.
        // Close-on-exec: a process the test run starts must not keep this connection open.
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketDescriptor >= 0 else { throw RawHTTPError("socket() failed") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(socketDescriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socketDescriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        if let sourceAddress {
            var source = Self.address(sourceAddress, port: 0)
            let bound = withUnsafePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                Glibc.close(socketDescriptor)
                throw RawHTTPError("bind to \(sourceAddress) failed")
            }
        }
        var target = Self.address(host, port: port)
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(socketDescriptor)
            throw RawHTTPError("connect to \(host):\(port) failed: \(reason)")
        }
        descriptor = socketDescriptor
    }

    deinit { Glibc.close(descriptor) }

    private static func address(_ host: String, port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw RawHTTPError("send failed: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Reads more bytes; `false` when the peer closed the connection.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var count = 0
        repeat {
            // A signal (SIGCHLD from a test's child process) interrupts a recv that has a
            // receive timeout even under SA_RESTART; that is no answer from the server.
            count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        } while count < 0 && errno == EINTR
        if count == 0 { return false }
        guard count > 0 else {
            if errno == ECONNRESET { return false }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw RawHTTPError("timed out waiting for the server", isTimeout: true) }
            throw RawHTTPError("recv failed: \(String(cString: strerror(errno)))")
        }
        buffered.append(contentsOf: chunk[0..<count])
        return true
    }

    /// Reads one response (Content-Length, chunked, or until close).
    public func readResponse(forHEAD: Bool = false) throws -> RawHTTPResponse {
        var response = try readResponseHead()
        let status = response.status
        if forHEAD || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            while buffered.count < length {
                guard try fill() else { throw RawHTTPError("connection closed inside the body") }
            }
            response.body = Array(buffered[0..<length])
            buffered.removeFirst(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            response.body = try readChunkedBody()
        } else {
            while try fill() {}
            response.body = buffered
            buffered = []
        }
        return response
    }

    /// Reads a response's status line and header fields, and leaves its body to be read
    /// (for a stream, chunk by chunk with ``readChunk()``).
    public func readResponseHead() throws -> RawHTTPResponse {
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = Self.find([13, 10, 13, 10], in: buffered)
            if headerEnd == nil {
                guard try fill() else { throw RawHTTPError("connection closed before a response (\(buffered.count) bytes)") }
            }
        }
        guard let end = headerEnd else { throw RawHTTPError("no header end") }
        let head = String(decoding: buffered[0..<end], as: UTF8.self)
        buffered.removeFirst(end + 4)
        var lines = head.crlfLines()
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw RawHTTPError("bad status line: \(statusLine)") }
        let headers: [(name: String, value: String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces())
        }
        return RawHTTPResponse(status: status, headers: headers, body: [])
    }

    /// Reads the next chunk of a chunked body; `nil` at its last (empty) chunk.
    public func readChunk() throws -> [UInt8]? {
        var lineEnd = Self.find([13, 10], in: buffered)
        while lineEnd == nil {
            guard try fill() else { throw RawHTTPError("closed inside a chunk") }
            lineEnd = Self.find([13, 10], in: buffered)
        }
        guard let end = lineEnd, let size = Int(String(decoding: buffered[0..<end], as: UTF8.self), radix: 16) else {
            throw RawHTTPError("bad chunk size")
        }
        buffered.removeFirst(end + 2)
        while buffered.count < size + 2 {
            guard try fill() else { throw RawHTTPError("closed inside a chunk") }
        }
        if size == 0 {
            buffered.removeFirst(2)
            return nil
        }
        let chunk = Array(buffered[0..<size])
        buffered.removeFirst(size + 2)
        return chunk
    }

    private func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while let chunk = try readChunk() { body.append(contentsOf: chunk) }
        return body
    }

    /// Whether the peer has sent bytes not read yet (or closed), without waiting.
    public func hasBytesWaiting() -> Bool {
        guard buffered.isEmpty else { return true }
        var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&pollDescriptor, 1, 0) > 0
    }

    /// Whether the peer closes the connection within `seconds` (reading and discarding).
    public func closesWithin(seconds: Double) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollDescriptor, 1, 50)
            if ready > 0 {
                var byte = [UInt8](repeating: 0, count: 4096)
                let count = byte.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count == 0 || (count < 0 && errno == ECONNRESET) { return true }
            }
        }
        return false
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<start + needle.count]) == needle { return start }
        }
        return nil
    }
}

extension String {
    func crlfLines() -> [String] {
        var result: [String] = []
        var current = ""
        var iterator = unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            if scalar == "\r" { continue }
            if scalar == "\n" {
                result.append(current)
                current = ""
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        result.append(current)
        return result
    }

    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

/// A GET request line and the usual headers, for keep-alive tests.
public func getRequest(_ path: String, headers: [String] = []) -> String {
    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
}
