import Foundation
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport
import Testing

/// Streamed responses on a real server: chunks pushed from other threads while the
/// connection waits suspended, the end of a stream, a client that leaves, and a shutdown.
@Suite struct StreamTests {
    @Test func chunksPushedFromAnotherThreadArriveInOrderAndTheStreamEnds() throws {
        try withServer { _, port, _ in
            let client = try RawHTTPConnection(port: port)
            try client.send(getRequest("/stream?name=order"))
            let head = try client.readResponseHead()
            #expect(head.status == 200 && head.header("Transfer-Encoding") == "chunked")
            let source = try #require(TestStreamSource.waitFor("order"))
            let count = 3000
            let pusher = Thread {
                for index in 0..<count {
                    source.push("\(index)\n")
                    // Now and then let the connection run dry, so that it suspends and is
                    // woken again, racing the next push.
                    if index % 7 == 0 { usleep(UInt32(index % 3) * 200) }
                }
                source.finish()
            }
            pusher.start()
            var received: [UInt8] = []
            while let chunk = try client.readChunk() { received.append(contentsOf: chunk) }
            let lines = String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
            #expect(lines == (0..<count).map(String.init))
            // The response ended cleanly: the connection takes the next request.
            try client.send(getRequest("/hello"))
            #expect(try client.readResponse().bodyText == "hello")
        }
    }

    /// An answer to HEAD is its head alone (RFC 9112 section 6.3): nothing of a body may come
    /// before the answer to the next request, or in its place.
    @Test func aStreamAnsweringHEADSendsItsHeadAlone() throws {
        try withServer { _, port, _ in
            let client = try RawHTTPConnection(port: port)
            try client.send("HEAD /stream?name=head HTTP/1.1\r\nHost: x\r\n\r\n" + getRequest("/hello"))
            let head = try client.readResponseHead()
            #expect(head.status == 200)
            do {
                let next = try client.readResponse()
                #expect(next.status == 200 && next.bodyText == "hello")
            } catch let error as RawHTTPError {
                // Closing the connection after the head is an answer too; anything else is not.
                #expect(error.description == "connection closed before a response (0 bytes)")
            }
        }
    }

    /// A stream's socket gets the configured time its unacknowledged bytes may wait
    /// (TCP_USER_TIMEOUT): a client gone without closing acknowledges no heartbeat, and the
    /// kernel closes the connection then, instead of after TCP's own retries.
    @Test func aStreamsSocketGivesUpOnBytesNeverAcknowledged() throws {
        /// The TCP_USER_TIMEOUT of every TCP socket this process holds, in milliseconds.
        func unacknowledgedTimeouts() -> [UInt32] {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return descriptors.compactMap(Int32.init).compactMap { descriptor in
                var value: UInt32 = 0
                var length = socklen_t(MemoryLayout<UInt32>.size)
                return getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, &value, &length) == 0 ? value : nil
            }
        }
        try withServer({ $0.streamUnacknowledgedSeconds = 7 }) { _, port, _ in
            #expect(!unacknowledgedTimeouts().contains(7000))
            let client = try RawHTTPConnection(port: port)
            try client.send(getRequest("/stream?name=unacknowledged"))
            #expect(try client.readResponseHead().status == 200)
            _ = try #require(TestStreamSource.waitFor("unacknowledged"))
            #expect(unacknowledgedTimeouts().contains(7000))
        }
    }

    @Test func aClientThatLeavesClosesItsStream() throws {
        try withServer { _, port, _ in
            var client: RawHTTPConnection? = try RawHTTPConnection(port: port)
            try client?.send(getRequest("/stream?name=leaver"))
            _ = try client?.readResponseHead()
            let source = try #require(TestStreamSource.waitFor("leaver"))
            client = nil
            // A suspended connection notices its peer only when it sends again.
            let deadline = ContinuousClock.now + .seconds(5)
            while !source.closed.withLock({ $0 }) && ContinuousClock.now < deadline {
                source.push(": ping\n\n")
                usleep(20_000)
            }
            #expect(source.closed.withLock { $0 })
        }
    }

    /// A waiting stream is exempt from the idle timeout (it is suspended), but a client that
    /// reads nothing while the stream has bytes to send is dropped after the timeout.
    @Test func aClientThatReadsNothingIsDroppedAfterTheConnectionTimeout() throws {
        try withServer({ $0.connectionTimeoutSeconds = 1 }) { _, port, _ in
            let idle = try RawHTTPConnection(port: port)
            try idle.send(getRequest("/stream?name=idle-reader"))
            _ = try idle.readResponseHead()
            let idleSource = try #require(TestStreamSource.waitFor("idle-reader"))
            let stuck = try RawHTTPConnection(port: port)
            try stuck.send(getRequest("/stream?name=stuck-reader"))
            _ = try stuck.readResponseHead()
            let stuckSource = try #require(TestStreamSource.waitFor("stuck-reader"))
            // Far more than the sockets' buffers hold: the stream keeps bytes to send.
            let chunk = String(repeating: "x", count: 65_536)
            for _ in 0..<128 { stuckSource.push(chunk) }
            _ = eventually(within: 8) { stuckSource.closed.withLock { $0 } }
            #expect(stuckSource.closed.withLock { $0 }, "a client that reads nothing was not dropped")
            // The waiting stream, quiet for longer than the timeout, is still open.
            #expect(!idleSource.closed.withLock { $0 })
            idleSource.push("still here\n")
            #expect(try idle.readChunk().map { String(decoding: $0, as: UTF8.self) } == "still here\n")
        }
    }

    @Test func aShutdownEndsEveryStreamAtOnce() throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.threads = 2
        configuration.shutdownGraceSeconds = 20
        let server = HTTPServer(configuration: configuration, handler: TestHandler(), observer: RecordingObserver(), logger: .init(label: "test"))
        try server.start()
        let clients = try (0..<5).map { index in
            let client = try RawHTTPConnection(port: server.port)
            try client.send(getRequest("/stream?name=shutdown\(index)"))
            #expect(try client.readResponseHead().status == 200)
            return client
        }
        for index in 0..<5 { _ = try #require(TestStreamSource.waitFor("shutdown\(index)")) }
        let started = ContinuousClock.now
        server.shutdown()
        #expect(ContinuousClock.now - started < .seconds(5), "streams held the shutdown for its grace")
        for client in clients {
            // The body ends (its last chunk), or the connection closes.
            #expect((try? client.readChunk()) == nil)
        }
    }
}
