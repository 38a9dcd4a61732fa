import HTTPTypes
import Logging
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport
import Testing

@testable import TabulaCurl

@Suite struct HTTPClientTests {
    @Test func postCarriesBodyAndHeadersAndReadsTheAnswer() throws {
        try withEchoServer { port, _ in
            let client = try HTTPClient(maxConnections: 2)
            defer { client.shutdown() }
            // Over 1 KiB, with every byte value: curl would otherwise wait for 100-continue.
            let body = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let echoed = post(client, url(port, "/echo"), headers: [("Content-Type", "application/x-test"), ("X-Trace", "abc 123")], body: body)
            #expect(echoed == .success(HTTPClientResponse(status: 200, contentType: "application/x-test", body: body)))

            let seen = post(client, url(port, "/headers"), headers: [("X-Trace", "abc 123"), ("X-Empty", "")], body: body)
            let lines = (try? seen?.get()).map { String(decoding: $0.body, as: UTF8.self).split(separator: "\n").map(String.init) } ?? []
            #expect(lines.contains("x-trace: abc 123"))
            #expect(lines.contains("x-empty: "))
            #expect(lines.contains("content-length: 5000"))
            #expect(!lines.contains { $0.hasPrefix("expect:") || $0.hasPrefix("content-type:") })
        }
    }

    @Test func anErrorStatusIsAnAnswer() throws {
        try withEchoServer { port, _ in
            let client = try HTTPClient(maxConnections: 1)
            defer { client.shutdown() }
            let answer = post(client, url(port, "/status?code=500"))
            #expect(answer == .success(HTTPClientResponse(status: 500, contentType: "text/plain", body: Array("boom".utf8))))
        }
    }

    /// `Retry-After`'s seconds are read (curl reads a date too); an answer without it has none.
    @Test func aRetryAfterIsRead() throws {
        let busy = try ScriptedServer { request in
            .raw(
                Array(
                    (request.path == "/busy"
                        ? "HTTP/1.1 503 Busy\r\nRetry-After: 7\r\nContent-Length: 0\r\n\r\n"
                        : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").utf8))
        }
        defer { busy.close() }
        let client = try HTTPClient(maxConnections: 1)
        defer { client.shutdown() }
        #expect(try post(client, busy.url + "/busy")?.get().retryAfterSeconds == 7)
        #expect(try post(client, busy.url + "/calm")?.get().retryAfterSeconds == nil)
    }

    /// A streamed answer's head carries its type and `Retry-After` with its first part (a
    /// refused stream's problem, say).
    @Test func aStreamedAnswersHeadIsRead() throws {
        let refusing = try ScriptedServer { _ in
            .raw(
                Array(
                    "HTTP/1.1 429 Too Many\r\nContent-Type: application/problem+json\r\nRetry-After: 15\r\nContent-Length: 2\r\n\r\n{}".utf8))
        }
        defer { refusing.close() }
        let client = try HTTPClient(maxConnections: 1)
        defer { client.shutdown() }
        let heads = BlockingQueue<HTTPClientHead>(capacity: 4)
        let done = BlockingQueue<Result<HTTPClientResponse, HTTPClientError>>(capacity: 1)
        var request = HTTPClientRequest(url: refusing.url + "/stream", timeout: .seconds(5))
        request.method = "GET"
        request.receive = { head, _ in
            _ = heads.push(head)
            return true
        }
        client.post(request) { _ = done.push($0) }
        #expect(done.take(maximum: 1, timeout: 10)?.first != nil)
        #expect(
            heads.take(maximum: 1, timeout: 10)?.first
                == HTTPClientHead(status: 429, contentType: "application/problem+json", retryAfterSeconds: 15))
    }

    @Test func sequentialRequestsReuseOneConnection() throws {
        try withEchoServer { port, _ in
            let client = try HTTPClient(maxConnections: 4)
            defer { client.shutdown() }
            for index in 0..<50 {
                let body = Array("request \(index)".utf8)
                #expect(try post(client, url(port, "/echo"), body: body)?.get().body == body)
            }
            #expect((1...2).contains(client.connectionsOpened))
        }
    }

    @Test func concurrentRequestsShareTheConnectionLimit() throws {
        try withEchoServer { port, _ in
            let client = try HTTPClient(maxConnections: 8)
            defer { client.shutdown() }
            let results = BlockingQueue<(Int, Result<HTTPClientResponse, HTTPClientError>)>(capacity: 64)
            for index in 0..<64 {
                let request = HTTPClientRequest(url: url(port, "/echo"), body: Array("\(index)".utf8))
                client.post(request) { _ = results.push((index, $0)) }
            }
            var answers: [Int: Result<HTTPClientResponse, HTTPClientError>] = [:]
            let deadline = ContinuousClock.now + .seconds(20)
            while answers.count < 64, ContinuousClock.now < deadline {
                for (index, result) in results.take(maximum: 64, timeout: 1) ?? [] { answers[index] = result }
            }
            #expect(answers.count == 64)
            for (index, result) in answers {
                #expect((try? result.get().body) == Array("\(index)".utf8))
            }
            #expect(client.connectionsOpened >= 1 && client.connectionsOpened <= 8)
        }
    }

    @Test func aLateAnswerTimesOut() throws {
        try withEchoServer { port, _ in
            let client = try HTTPClient(maxConnections: 1)
            defer { client.shutdown() }
            let started = ContinuousClock.now
            let answer = post(client, url(port, "/late?ms=1000"), timeout: .milliseconds(200))
            let elapsed = ContinuousClock.now - started
            #expect(answer == .failure(.timedOut))
            #expect(elapsed >= .milliseconds(190) && elapsed < .milliseconds(900))
        }
    }

    @Test func aClosedPortIsATransportError() throws {
        // Bound but not listening: connections to it are refused, and no other test takes it.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound)
        let client = try HTTPClient(maxConnections: 1)
        defer { client.shutdown() }
        let answer = post(client, url(UInt16(bigEndian: address.sin_port), "/echo"))
        guard case .failure(.transport(let reason)) = answer else {
            Issue.record("expected a transport error, got \(String(describing: answer))")
            return
        }
        #expect(reason.lowercased().contains("connect"), "\(reason)")
    }

    @Test func otherSchemesAreRefused() throws {
        let client = try HTTPClient(maxConnections: 1)
        defer { client.shutdown() }
        guard case .failure(.transport) = post(client, "file:///etc/hostname") else {
            Issue.record("a file URL was not refused")
            return
        }
    }

    @Test func headerFieldsCannotInjectLines() throws {
        let client = try HTTPClient(maxConnections: 1)
        defer { client.shutdown() }
        guard case .failure(.transport(let reason)) = post(client, "http://127.0.0.1:9/", headers: [("X-A", "1\r\nX-B: 2")]) else {
            Issue.record("a line break in a header value was sent")
            return
        }
        #expect(reason.contains("line break"))
    }

    /// An answer that keeps coming, slowly, outlasts a timeout for silence, and not one for
    /// the whole exchange.
    @Test func aTimeoutForSilenceLetsASlowAnswerFinish() throws {
        let body = Array("slow but steady".utf8)
        let dripping = try ScriptedServer { _ in
            .streamed(status: 200, contentType: "text/plain") { send in
                for byte in body {
                    guard send([byte]) else { return }
                    usleep(150_000)
                }
            }
        }
        defer { dripping.close() }
        let client = try HTTPClient(maxConnections: 1)
        defer { client.shutdown() }
        let total = BlockingQueue<Result<HTTPClientResponse, HTTPClientError>>(capacity: 1)
        client.post(HTTPClientRequest(url: dripping.url + "/slow", body: [], timeout: .seconds(1))) { _ = total.push($0) }
        #expect(total.take(maximum: 1, timeout: 30)?.first == .failure(.timedOut))
        var silence = HTTPClientRequest(url: dripping.url + "/slow", body: [], timeout: .seconds(1))
        silence.timeoutIsSilence = true
        let slow = BlockingQueue<Result<HTTPClientResponse, HTTPClientError>>(capacity: 1)
        client.post(silence) { _ = slow.push($0) }
        #expect(try slow.take(maximum: 1, timeout: 30)?.first?.get().body == body)
    }

    /// A stream is ended by silence longer than its timeout, not by a low rate: a byte every
    /// 2 s (a heartbeat's few bytes every 15 s, slowed down) is a live stream under a 4 s
    /// timeout, however few bytes a second that makes; a stream that falls silent times out.
    @Test func aStreamEndsWhenSilentNotWhenQuiet() throws {
        let quiet = try ScriptedServer { request in
            .streamed(status: 200, contentType: "text/event-stream") { send in
                for _ in 0..<4 {
                    guard send(Array(":".utf8)) else { return }
                    usleep(request.path == "/quiet" ? 2_000_000 : 30_000_000)
                }
            }
        }
        defer { quiet.close() }
        let client = try HTTPClient(maxConnections: 2)
        defer { client.shutdown() }
        func stream(_ path: String) -> BlockingQueue<Result<HTTPClientResponse, HTTPClientError>> {
            let done = BlockingQueue<Result<HTTPClientResponse, HTTPClientError>>(capacity: 1)
            var request = HTTPClientRequest(url: quiet.url + path, timeout: .seconds(4))
            request.method = "GET"
            request.receive = { _, _ in true }
            client.post(request) { _ = done.push($0) }
            return done
        }
        let (alive, silent) = (stream("/quiet"), stream("/silent"))
        #expect(try alive.take(maximum: 1, timeout: 60)?.first?.get().status == 200, "the server ended it, after 8 s")
        #expect(silent.take(maximum: 1, timeout: 60)?.first == .failure(.timedOut))
    }

    @Test func anAnswerOverTheLimitIsRefused() throws {
        try withEchoServer { port, _ in
            let client = try HTTPClient(maxConnections: 1)
            defer { client.shutdown() }
            let limit = 1 << 20
            #expect(try post(client, url(port, "/big?bytes=\(limit)"))?.get().body.count == limit)
            #expect(post(client, url(port, "/big?bytes=\(limit + 1)")) == .failure(.answerTooLarge(limit: limit)))
            // The aborted connection is not reused, and the client goes on.
            #expect(try post(client, url(port, "/echo"), body: [1, 2, 3])?.get().body == [1, 2, 3])
            // A request may take larger answers (tabula watch's screens), or only smaller ones.
            #expect(try post(client, url(port, "/big?bytes=\(limit + 1)"), answerLimit: 2 * limit)?.get().body.count == limit + 1)
            #expect(post(client, url(port, "/big?bytes=101"), answerLimit: 100) == .failure(.answerTooLarge(limit: 100)))
        }
    }

    @Test func shutdownFailsTransfersInFlightAndIsIdempotent() throws {
        try withEchoServer { port, arrivals in
            let client = try HTTPClient(maxConnections: 1)
            let results = BlockingQueue<Result<HTTPClientResponse, HTTPClientError>>(capacity: 2)
            client.post(HTTPClientRequest(url: url(port, "/late?ms=3000"))) { _ = results.push($0) }
            #expect(arrivals.take(maximum: 1, timeout: 10)?.first == "/late")
            client.shutdown()
            // shutdown() returns once the thread has ended: the completion has run.
            #expect(results.take(maximum: 1, timeout: 0.01)?.first == .failure(.transport("the client stopped")))
            client.shutdown()
            client.post(HTTPClientRequest(url: url(port, "/echo"))) { _ = results.push($0) }
            #expect(results.take(maximum: 1, timeout: 0.01)?.first == .failure(.transport("the client stopped")))
        }
    }

    @Test func completionsMayShutTheClientDown() throws {
        try withEchoServer { port, _ in
            let client = try HTTPClient(maxConnections: 1)
            let done = BlockingQueue<Bool>(capacity: 1)
            client.post(HTTPClientRequest(url: url(port, "/echo"))) { _ in
                client.shutdown()
                _ = done.push(true)
            }
            #expect(done.take(maximum: 1, timeout: 10)?.first == true)
            client.shutdown()
        }
    }

    @Test func aClientReleasedInItsOwnCompletionStops() throws {
        try withEchoServer { port, _ in
            let holder = Locked<HTTPClient?>(try HTTPClient(maxConnections: 1))
            let posted = BlockingQueue<Bool>(capacity: 1)
            let done = BlockingQueue<Bool>(capacity: 1)
            if let client = holder.withLock({ $0 }) {
                client.post(HTTPClientRequest(url: url(port, "/echo"))) { _ in
                    // Once the test's own reference is gone, this is the last: the client's
                    // deinit runs here, on its thread, which then detaches itself.
                    _ = posted.take(maximum: 1, timeout: 10)
                    holder.withLock { $0 = nil }
                    _ = done.push(true)
                }
            }
            _ = posted.push(true)
            #expect(done.take(maximum: 1, timeout: 10)?.first == true)
        }
    }

    @Test func timeoutsRoundUpToWholeMilliseconds() {
        #expect(Transfer.milliseconds(.milliseconds(200)) == 200)
        #expect(Transfer.milliseconds(.microseconds(1500)) == 2)
        #expect(Transfer.milliseconds(.zero) == 1)
        #expect(Transfer.milliseconds(.seconds(-3)) == 1)
        #expect(Transfer.milliseconds(.seconds(Int64.max)) == Int(Int32.max))
    }
}

// MARK: Helpers

private func url(_ port: UInt16, _ path: String) -> String {
    "http://127.0.0.1:\(port)\(path)"
}

/// Posts and waits, for at most 10 seconds, for the completion.
private func post(
    _ client: HTTPClient, _ url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], timeout: Duration = .seconds(5),
    answerLimit: Int = HTTPClientRequest.defaultAnswerLimit
) -> Result<HTTPClientResponse, HTTPClientError>? {
    let result = BlockingQueue<Result<HTTPClientResponse, HTTPClientError>>(capacity: 1)
    var request = HTTPClientRequest(url: url, headers: headers, body: body, timeout: timeout)
    request.answerLimit = answerLimit
    client.post(request) { _ = result.push($0) }
    return result.take(maximum: 1, timeout: 10)?.first
}

/// Starts an ``EchoHandler`` server on a free loopback port; `body` gets the port and the
/// paths of requests as they arrive.
private func withEchoServer(_ body: (UInt16, BlockingQueue<String>) throws -> Void) throws {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.threads = 2
    configuration.shutdownGraceSeconds = 1
    let arrivals = BlockingQueue<String>()
    let server = HTTPServer(configuration: configuration, handler: EchoHandler(arrivals: arrivals), observer: SilentObserver(), logger: Logger(label: "test"))
    try server.start()
    defer { server.shutdown() }
    try body(server.port, arrivals)
}

/// `/echo` sends the body back with its content type; `/headers` lists the header fields it
/// got, lowercased, one a line; `/status?code=` answers with that status; `/late?ms=`
/// answers from another thread after a delay; `/big?bytes=` answers that many bytes.
private struct EchoHandler: HTTPHandler {
    let arrivals: BlockingQueue<String>

    func handle(_ request: Request, responder: Responder) {
        _ = arrivals.push(request.rawPath)
        let number = { (name: String) in request.rawQuery.first { $0.name == name }?.value.flatMap { Int($0) } ?? 0 }
        switch request.rawPath {
        case "/echo":
            var fields = HTTPFields()
            if let type = request.headers.value("Content-Type") { fields[.contentType] = type }
            responder.send(Response(status: .ok, headerFields: fields, body: request.body))
        case "/headers":
            var lines = ""
            request.headers.forEachHeader { name, value in
                lines += String(decoding: name, as: UTF8.self).lowercased() + ": " + String(decoding: value, as: UTF8.self) + "\n"
            }
            responder.send(Response(status: .ok, headerFields: [.contentType: "text/plain"], body: Array(lines.utf8)))
        case "/status":
            responder.send(Response(status: .init(code: number("code")), headerFields: [.contentType: "text/plain"], body: Array("boom".utf8)))
        case "/late":
            // From a thread of its own after a delay, as a slow backend would.
            let milliseconds = number("ms")
            _ = WorkerThread.start {
                usleep(UInt32(milliseconds * 1000))
                responder.send(Response(status: .ok, body: Array("late".utf8)))
            }
        case "/big":
            responder.send(Response(status: .ok, body: Array(repeating: UInt8(ascii: "x"), count: number("bytes"))))
        default:
            responder.send(Response(status: .notFound))
        }
    }

    func refusal(_ reason: RejectionReason, under configuration: ServerConfiguration) -> Response {
        Response(status: reason.status, body: Array(reason.rawValue.utf8))
    }
}
