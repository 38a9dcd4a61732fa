import TabulaPlatform
import TabulaTestSupport
import Testing

@testable import TabulaHTTP

@Suite struct HardeningTests {
    /// Sends `request`, expects `status`, and expects the server to close the connection.
    func expectRefusal(_ request: String, status: Int, reason: RejectionReason? = nil, port: UInt16, observer: RecordingObserver) throws {
        let connection = try RawHTTPConnection(port: port)
        try connection.send(request)
        let response = try connection.readResponse()
        #expect(response.status == status, "\(request.prefix(60))")
        #expect(response.header("Connection")?.lowercased() == "close")
        #expect(connection.closesWithin(seconds: 2))
        if let reason {
            #expect(response.bodyText == reason.rawValue)
            #expect(observer.rejections.withLock { $0.contains(reason) })
        }
    }

    @Test func bodyOverTheLimitByContentLength() throws {
        try withServer { _, port, observer in
            try expectRefusal(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1025\r\n\r\n", status: 413, reason: .bodyTooLarge, port: port, observer: observer)
            // Exactly at the limit is fine.
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1024\r\n\r\n" + String(repeating: "a", count: 1024))
            #expect(try connection.readResponse().bodyText == "1024")
        }
    }

    @Test func chunkedBodyOverTheLimit() throws {
        try withServer { _, port, observer in
            let chunk = String(repeating: "b", count: 600)
            try expectRefusal(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n",
                status: 413, reason: .bodyTooLarge, port: port, observer: observer)
        }
    }

    /// However many chunks it comes in, a body over the limit gets 413 once it ends.
    @Test func largeChunkedBodyOverTheLimitGets413() throws {
        try withServer { _, port, observer in
            let chunk = "10000\r\n" + String(repeating: "d", count: 0x10000) + "\r\n"
            try expectRefusal(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: chunk, count: 40) + "0\r\n\r\n",
                status: 413, reason: .bodyTooLarge, port: port, observer: observer)
        }
    }

    /// A client that goes on sending past the limit for longer than the connection timeout
    /// is cut off.
    @Test func endlessChunkedBodyIsCutOff() throws {
        try withServer({ $0.connectionTimeoutSeconds = 1 }) { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = "4000\r\n" + String(repeating: "c", count: 0x4000) + "\r\n"
            let deadline = ContinuousClock.now + .seconds(10)
            var closed = false
            while !closed && ContinuousClock.now < deadline {
                do {
                    try connection.send(chunk)
                    usleep(2_000)
                } catch {
                    closed = true
                }
            }
            #expect(closed || connection.closesWithin(seconds: 2))
        }
    }

    @Test func duplicateContentLengthIsRefused() throws {
        try withServer { _, port, observer in
            try expectRefusal(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", status: 400,
                reason: .duplicateContentLength, port: port, observer: observer)
            try expectRefusal(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\nhello", status: 400,
                reason: .duplicateContentLength, port: port, observer: observer)
        }
    }

    @Test func contentLengthWithTransferEncodingIsRefused() throws {
        try withServer { _, port, observer in
            try expectRefusal(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                status: 400, reason: .contentLengthWithTransferEncoding, port: port, observer: observer)
        }
    }

    @Test func transferEncodingOtherThanChunkedIsNotImplemented() throws {
        try withServer { _, port, observer in
            try expectRefusal(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc", status: 501,
                reason: .unsupportedTransferEncoding, port: port, observer: observer)
            try expectRefusal(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", status: 501,
                reason: .unsupportedTransferEncoding, port: port, observer: observer)
            // Values libmicrohttpd does not read as chunked, which would make it take the
            // rest of the connection (a request pipelined after it included) for the body.
            for value in ["chunked,", "chunked ", ", chunked", "chunked\r\nTransfer-Encoding: chunked", "\r\nTransfer-Encoding: chunked"] {
                try expectRefusal(
                    "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(value)\r\n\r\n5\r\nhello\r\n0\r\n\r\n", status: 501,
                    reason: .unsupportedTransferEncoding, port: port, observer: observer)
            }
            // In any case, as one value, it is read.
            let chunked = try RawHTTPConnection(port: port)
            try chunked.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            #expect(try chunked.readResponse().bodyText == "5")
        }
    }

    /// A header folded over two lines (obs-fold) is refused, RFC 9112 section 5.2: the
    /// continuation would become part of the header's name, making a header (a
    /// Transfer-Encoding, an X-Session) that a proxy joining the lines never saw.
    @Test func aFoldedHeaderIsRefused() throws {
        try withServer { _, port, observer in
            // An empty first line too: libmicrohttpd glues ` two` onto the name.
            for folded in [
                "Transfer-Enc: chunked\r\n oding", "X-Session: AAAA\r\n\tBBBB", "X-Test: one\r\n two", "X-Test:\r\n two",
                "Transfer-Encoding:\r\n chunked",
            ] {
                try expectRefusal(
                    "GET /header HTTP/1.1\r\nHost: x\r\n\(folded)\r\n\r\n", status: 400, reason: .malformedHeader, port: port,
                    observer: observer)
            }
            // Spaces and tabs around a value on its one line are fine.
            let plain = try RawHTTPConnection(port: port)
            try plain.send("GET /header HTTP/1.1\r\nHost: x\r\nX-Test: \t  spaced \t\r\nX-Test:tight\r\nX-Test:\r\n\r\n")
            #expect(try plain.readResponse().bodyText == "[spaced][tight][]")
        }
    }

    /// A control character in a value, but a tab, is refused (RFC 9110 section 5.5): a bare
    /// CR stays in libmicrohttpd's value, where a proxy that ends a line at it reads another
    /// header.
    @Test func aControlCharacterInAValueIsRefused() throws {
        try withServer { _, port, observer in
            for value in ["a\rTransfer-Encoding: chunked", "a\u{01}b", "a\u{7F}", "\u{1B}[31m"] {
                try expectRefusal(
                    "GET /header HTTP/1.1\r\nHost: x\r\nX-Test: \(value)\r\n\r\n", status: 400, reason: .malformedHeader, port: port,
                    observer: observer)
            }
            try expectRefusal("GET /hello HTTP/1.1\r\nHost: a\rb\r\n\r\n", status: 400, reason: .malformedHeader, port: port, observer: observer)
            let tab = try RawHTTPConnection(port: port)
            try tab.send("GET /header HTTP/1.1\r\nHost: x\r\nX-Test: a\tb\r\n\r\n")
            #expect(try tab.readResponse().bodyText == "[a\tb]")
        }
    }

    /// RFC 9112 section 6.1: Transfer-Encoding in an HTTP/1.0 request is faulty framing (a
    /// proxy of that version would not decode it); libmicrohttpd decoded it all the same.
    @Test func transferEncodingInHTTP10IsRefused() throws {
        try withServer { _, port, observer in
            try expectRefusal(
                "POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400,
                reason: .malformedRequest, port: port, observer: observer)
            let plain = try RawHTTPConnection(port: port)
            try plain.send("POST /echo HTTP/1.0\r\nContent-Length: 5\r\n\r\nhello")
            #expect(try plain.readResponse().bodyText == "5")
        }
    }

    @Test func http11WithoutHostIsRefused() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /hello HTTP/1.1\r\n\r\n")
            #expect(try connection.readResponse().status == 400)
            // HTTP/1.0 does not need Host.
            let old = try RawHTTPConnection(port: port)
            try old.send("GET /hello HTTP/1.0\r\n\r\n")
            #expect(try old.readResponse().bodyText == "hello")
        }
    }

    @Test func headersOverTheMemoryLimitGet431() throws {
        try withServer({ $0.connectionMemoryLimit = 8192 }) { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "h", count: 20_000))\r\n\r\n")
            #expect(try connection.readResponse().status == 431)
            let many = try RawHTTPConnection(port: port)
            try many.send("GET /hello HTTP/1.1\r\nHost: x\r\n" + (0..<800).map { "X-H\($0): v\r\n" }.joined() + "\r\n")
            #expect(try many.readResponse().status == 431)
        }
    }

    /// libmicrohttpd answers these itself, logging the cause and then the status; each
    /// refusal is counted once, by the status it was answered with.
    @Test func libmicrohttpdRefusalsAreCountedOnceEach() throws {
        try withServer({ $0.connectionMemoryLimit = 8192 }) { _, port, observer in
            let refusals: [(request: String, status: Int, reason: RejectionReason)] = [
                ("GET /hello HTTP/1.1\r\n\r\n", 400, .malformedRequest),
                ("GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "h", count: 20_000))\r\n\r\n", 431, .headersTooLarge),
                ("GET /\(String(repeating: "a", count: 9_000)) HTTP/1.1\r\nHost: x\r\n\r\n", 414, .uriTooLong),
                ("GET /hello HTTP/2.0\r\nHost: x\r\n\r\n", 505, .httpVersionNotSupported),
                ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400, .malformedRequest),
            ]
            for (index, refusal) in refusals.enumerated() {
                let connection = try RawHTTPConnection(port: port)
                try connection.send(refusal.request)
                #expect(try connection.readResponse().status == refusal.status, "\(refusal.reason)")
                #expect(eventually { observer.rejections.withLock { $0.count } > index }, "\(refusal.reason) was not counted")
                usleep(50_000)  // time for a second count of the same refusal, which must not come
                #expect(observer.rejections.withLock { $0 } == refusals[...index].map(\.reason))
            }
        }
    }

    @Test func libmicrohttpdLogLinesNameTheirRefusal() {
        func reason(_ line: String) -> RejectionReason? { ServerCore.rejection(inLogMessage: line) }
        #expect(reason("Error processing request (HTTP response code is 431 ('<html>…</html>')). Closing connection.") == .headersTooLarge)
        #expect(reason("Error processing request (HTTP response code is 414 ('<html>…</html>')). Closing connection.") == .uriTooLong)
        #expect(reason("Error processing request (HTTP response code is 505 ('<html>…</html>')). Closing connection.") == .httpVersionNotSupported)
        #expect(reason("Error processing request (HTTP response code is 413 ('<html>…</html>')). Closing connection.") == .bodyTooLarge)
        #expect(reason("Error processing request (HTTP response code is 400 ('<html>…</html>')). Closing connection.") == .malformedRequest)
        #expect(reason("Error processing request (HTTP response code is 501 ('<html>…</html>')). Closing connection.") == .unsupportedTransferEncoding)
        #expect(reason("Error processing request (HTTP response code is 500 ('<html>…</html>')). Closing connection.") == nil)
        // The lines naming the cause come before the one above, for the same refusal.
        #expect(reason("Received HTTP/1.1 request without `Host' header.") == nil)
        #expect(reason("Not enough memory in pool to allocate header record!") == nil)
        #expect(reason("Failed to parse `Content-Length' header. Closing connection.") == nil)
        #expect(reason("Server reached connection limit. Closing inbound connection.") == .connectionLimit)
    }

    /// docs/operations.md promises headers of about 7,500 bytes under the default limit.
    @Test func theDefaultLimitFitsHeadersOfSevenThousandBytes() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "h", count: 7_400))\r\n\r\n")
            #expect(try connection.readResponse().bodyText == "hello")
            let larger = try RawHTTPConnection(port: port)
            try larger.send("GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "h", count: 8_300))\r\n\r\n")
            #expect(try larger.readResponse().status == 431)
        }
    }

    @Test func idleConnectionsAreClosedAfterTheTimeout() throws {
        try withServer({ $0.connectionTimeoutSeconds = 1 }) { _, port, _ in
            let idle = try RawHTTPConnection(port: port)
            #expect(idle.closesWithin(seconds: 4))
            let afterRequest = try RawHTTPConnection(port: port)
            try afterRequest.send(getRequest("/hello"))
            #expect(try afterRequest.readResponse().status == 200)
            #expect(afterRequest.closesWithin(seconds: 4))
        }
    }

    @Test func connectionsOverThePerAddressLimitAreRefused() throws {
        try withServer({
            $0.maxConnectionsPerIP = 4; $0.threads = 1
        }) { _, port, observer in
            var held: [RawHTTPConnection] = []
            for _ in 0..<4 {
                let connection = try RawHTTPConnection(port: port, sourceAddress: "127.0.0.1")
                try connection.send(getRequest("/hello"))
                #expect(try connection.readResponse().status == 200)
                held.append(connection)
            }
            let refused = try RawHTTPConnection(port: port, sourceAddress: "127.0.0.1")
            #expect(refused.closesWithin(seconds: 2))
            #expect(observer.rejections.withLock { $0.contains(.connectionLimit) })
            // Another client address is still served meanwhile.
            let other = try RawHTTPConnection(port: port, sourceAddress: "127.0.0.2")
            try other.send(getRequest("/hello"))
            #expect(try other.readResponse().bodyText == "hello")
            // Closing one frees a place for its address once the server has seen the close.
            held.removeFirst()
            let served = eventually {
                guard let again = try? RawHTTPConnection(port: port, sourceAddress: "127.0.0.1", timeout: 1) else { return false }
                try? again.send(getRequest("/hello"))
                return (try? again.readResponse().bodyText) == "hello"
            }
            #expect(served, "a place freed by a close was not given to the address")
        }
    }

    /// At its total limit libmicrohttpd stops accepting: a further connection waits in
    /// the kernel's backlog, unserved, until a slot frees.
    @Test func totalConnectionLimitHolds() throws {
        try withServer({
            $0.maxConnections = 3; $0.threads = 1
        }) { _, port, _ in
            var held = try (0..<3).map { _ in try RawHTTPConnection(port: port) }
            for connection in held {
                try connection.send(getRequest("/hello"))
                #expect(try connection.readResponse().status == 200)
            }
            let waiting = try RawHTTPConnection(port: port, timeout: 1)
            try waiting.send(getRequest("/hello"))
            #expect(throws: RawHTTPError.self) { try waiting.readResponse() }
            held.removeFirst()  // closes one connection: the waiting one takes its place
            #expect(try waiting.readResponse().bodyText == "hello")
        }
    }

    /// A head that trickles in, a header line every half second, was never cut: each line
    /// renewed libmicrohttpd's idle timeout. It is closed once the header timeout is over.
    @Test func aTricklingHeadIsClosedAfterTheHeaderTimeout() throws {
        try withServer({ $0.headerTimeoutSeconds = 2 }) { _, port, observer in
            let connection = try RawHTTPConnection(port: port, timeout: 1)
            let started = ContinuousClock.now
            try connection.send("GET /hello HTTP/1.1\r\nHost: x\r\n")
            var closed = false
            while !closed && ContinuousClock.now - started < .seconds(8) {
                usleep(500_000)
                do {
                    try connection.send("X-Slow: header\r\n")
                } catch {
                    closed = true
                }
                if connection.closesWithin(seconds: 0.01) { closed = true }
            }
            #expect(closed)
            #expect(ContinuousClock.now - started >= .seconds(2))
            #expect(observer.rejections.withLock { $0.contains(.headerTimeout) })
        }
    }

    /// The request line itself, a byte at a time, counts too.
    @Test func aTricklingRequestLineIsClosedAfterTheHeaderTimeout() throws {
        try withServer({ $0.headerTimeoutSeconds = 1 }) { _, port, _ in
            let connection = try RawHTTPConnection(port: port, timeout: 1)
            let started = ContinuousClock.now
            var closed = false
            for byte in "GET /" + String(repeating: "a", count: 100) where !closed {
                do {
                    try connection.send(String(byte))
                } catch {
                    closed = true
                }
                if connection.closesWithin(seconds: 0.2) { closed = true }
            }
            #expect(closed)
            #expect(ContinuousClock.now - started < .seconds(6))
        }
    }

    /// Waiting between requests is the idle timeout's business, not the header timeout's;
    /// and a head sent whole after a pause is served.
    @Test func anIdleConnectionOutlivesTheHeaderTimeout() throws {
        try withServer({ $0.headerTimeoutSeconds = 1 }) { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(getRequest("/hello"))
            #expect(try connection.readResponse().bodyText == "hello")
            #expect(!connection.closesWithin(seconds: 2.5))
            try connection.send(getRequest("/hello"))
            #expect(try connection.readResponse().bodyText == "hello")
        }
    }
}
