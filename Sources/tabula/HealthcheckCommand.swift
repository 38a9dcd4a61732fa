import ArgumentParser
import TabulaPlatform

struct HealthcheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the service's /healthz answers 200 (for containers without curl).",
        discussion: """
            Without --url it asks http://$TABULA_HOST:$TABULA_PORT/healthz: port 8080 when \
            TABULA_PORT is unset, and 127.0.0.1 when TABULA_HOST is unset or listens on every \
            address (0.0.0.0; [::1] for ::).
            """
    )

    @Option(parsing: .unconditional, help: "The health URL, http only; a URL without a path asks /healthz (env TABULA_HEALTHCHECK_URL).")
    var url: String?

    @Option(parsing: .unconditional, help: "Seconds to wait for the answer.")
    var timeout: Double = 3

    func validate() throws {
        // Below a millisecond, the socket's time limits would read as none: wait for ever.
        guard timeout.isFinite, timeout >= 0.001, timeout <= 3600 else {
            throw ValidationError("--timeout must be a number of seconds from 0.001 to 3600")
        }
    }

    func run() throws {
        let port = EnvironmentSetting.value("TABULA_PORT") ?? "8080"
        if url == nil, EnvironmentSetting.value("TABULA_HEALTHCHECK_URL") == nil, HealthProbe.port(port) == nil {
            throw CommandFailure("TABULA_PORT \"\(port)\" is not a port: give a number from 1 to 65535")
        }
        let host = Self.probeHost(listeningOn: EnvironmentSetting.value("TABULA_HOST"))
        let target = url ?? EnvironmentSetting.value("TABULA_HEALTHCHECK_URL") ?? "http://\(host):\(port)/healthz"
        let status = try HealthProbe.status(of: target, timeoutSeconds: timeout)
        guard status == 200 else {
            throw CommandFailure("\(target) answered \(status)")
        }
        print("\(target) answered 200")
    }

    /// Where to reach a server listening on `host` (`TABULA_HOST`) from the same machine.
    static func probeHost(listeningOn host: String?) -> String {
        switch host {
        case nil, "", "0.0.0.0": "127.0.0.1"
        case "::", "[::]": "[::1]"
        case let host?: URLHost.bracketed(host)
        }
    }
}

/// A one-request HTTP/1.1 client over a plain socket, within one time limit for the whole
/// exchange (a server that trickles its answer gets no more), reading at most a status line.
enum HealthProbe {
    /// Longer than any status line a server sends; beyond, the answer is not HTTP.
    private static let statusLineLimit = 8192

    static func status(of url: String, timeoutSeconds: Double) throws -> Int {
        guard url.lowercased().hasPrefix("http://") else { throw CommandFailure("\(url): only http:// URLs are supported") }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let path = rest.dropFirst(authority.count).prefix { $0 != "#" }
        let (host, port) = try hostAndPort(String(authority), of: url)
        let deadline = SystemClock.monotonicNanoseconds() + Int64(timeoutSeconds * 1_000_000_000)
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else {
            throw CommandFailure("\(url): cannot resolve \(host)")
        }
        defer { freeaddrinfo(results) }
        let socket = Glibc.socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard socket >= 0 else { throw CommandFailure("\(url): cannot create a socket") }
        defer { close(socket) }
        // Linux bounds connect() and send() by the socket's send time limit.
        var limit = timeval(tv_sec: Int(timeoutSeconds), tv_usec: Int((timeoutSeconds - Double(Int(timeoutSeconds))) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(socket, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw CommandFailure("\(url): cannot connect: \(String(cString: strerror(errno)))")
        }
        // The service's own URL (no path, or "/") stands for its health URL.
        let pathAlone = path.prefix { $0 != "?" }
        let target = (pathAlone.isEmpty || pathAlone == "/" ? "/healthz" : pathAlone) + path.dropFirst(pathAlone.count)
        let request = Array("GET \(target) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw CommandFailure("\(url): cannot send the request")
        }
        var buffer = [UInt8](repeating: 0, count: 512)
        var received: [UInt8] = []
        while !received.contains(UInt8(ascii: "\n")) {
            guard received.count < statusLineLimit else {
                throw CommandFailure("\(url): not an HTTP answer: no status line in its first \(statusLineLimit) bytes")
            }
            let remaining = deadline - SystemClock.monotonicNanoseconds()
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard remaining > 0, poll(&ready, 1, Int32(clamping: (remaining + 999_999) / 1_000_000)) > 0 else {
                throw CommandFailure("\(url): no answer within \(timeoutSeconds) seconds")
            }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw CommandFailure("\(url): the connection closed before an answer") }
            received.append(contentsOf: buffer[0..<count])
        }
        let statusLine = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw CommandFailure("\(url): not an HTTP answer: \(statusLine)")
        }
        return status
    }

    /// A port as a URL writes one: 1 to 65535 in decimal digits.
    static func port(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = Int(text),
            (1...65_535).contains(port)
        else { return nil }
        return port
    }

    private static func hostAndPort(_ authority: String, of url: String) throws -> (String, Int) {
        let host: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw CommandFailure("\(url): an IPv6 address lacks its \"]\"") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw CommandFailure("\(url): \"\(after)\" after the address is not a port") }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = Substring(authority)
            portText = nil
        }
        guard !host.isEmpty else { throw CommandFailure("\(url): no host") }
        guard let portText else { return (String(host), 80) }
        guard let port = port(portText) else { throw CommandFailure("\(url): \"\(portText)\" is not a port: give a number from 1 to 65535") }
        return (String(host), port)
    }
}
