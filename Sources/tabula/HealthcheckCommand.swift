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

    @Option(help: "The health URL, http only; a URL without a path asks /healthz (env TABULA_HEALTHCHECK_URL).")
    var url: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 3

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 3600")
        }
    }

    func run() throws {
        let port = EnvironmentSetting.value("TABULA_PORT") ?? "8080"
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

/// A one-request HTTP/1.1 client over a plain socket.
enum HealthProbe {
    static func status(of url: String, timeoutSeconds: Double) throws -> Int {
        guard url.hasPrefix("http://") else { throw CommandFailure("\(url): only http:// URLs are supported") }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        let (host, port) = try hostAndPort(String(authority))
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
        var limit = timeval(tv_sec: Int(timeoutSeconds), tv_usec: Int((timeoutSeconds - Double(Int(timeoutSeconds))) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(socket, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw CommandFailure("\(url): cannot connect: \(String(cString: strerror(errno)))")
        }
        // The service's own URL (no path, or "/") stands for its health URL.
        let request = Array("GET \(path.isEmpty || path == "/" ? "/healthz" : path) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw CommandFailure("\(url): cannot send the request")
        }
        var buffer = [UInt8](repeating: 0, count: 512)
        var received: [UInt8] = []
        while !received.contains(UInt8(ascii: "\n")) {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw CommandFailure("\(url): no answer within \(timeoutSeconds) seconds") }
            received.append(contentsOf: buffer[0..<count])
        }
        let statusLine = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw CommandFailure("\(url): not an HTTP answer: \(statusLine)")
        }
        return status
    }

    private static func hostAndPort(_ authority: String) throws -> (String, Int) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let portText = authority[close...].dropFirst().drop { $0 == ":" }
            return (host, Int(portText) ?? 80)
        }
        let parts = authority.split(separator: ":", maxSplits: 1)
        guard let host = parts.first else { throw CommandFailure("no host in \(authority)") }
        let port = parts.count > 1 ? Int(parts[1]) : 80
        guard let port else { throw CommandFailure("bad port in \(authority)") }
        return (String(host), port)
    }
}
