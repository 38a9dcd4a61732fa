import TabulaHTTP
import TabulaTestSupport
import Testing

@Suite struct KeepAliveTests {
    @Test func manyRequestsShareOneConnection() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            for _ in 0..<200 {
                try connection.send(getRequest("/hello"))
                let response = try connection.readResponse()
                #expect(response.status == 200)
                #expect(response.bodyText == "hello")
                #expect(response.header("Connection")?.lowercased() != "close")
            }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(getRequest("/hello") + getRequest("/fixed") + getRequest("/hello"))
            #expect(try connection.readResponse().bodyText == "hello")
            #expect(try connection.readResponse().body.count == 3400)
            #expect(try connection.readResponse().bodyText == "hello")
        }
    }

    @Test func lateAnswersKeepTheConnection() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            for _ in 0..<20 {
                try connection.send(getRequest("/late?ms=5"))
                let response = try connection.readResponse()
                #expect(response.status == 200 && response.bodyText == "late")
                try connection.send(getRequest("/hello"))
                #expect(try connection.readResponse().bodyText == "hello")
            }
        }
    }

    @Test func preparedResponsesAreSentAgainAndAgain() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            for _ in 0..<100 {
                try connection.send(getRequest("/fixed"))
                let response = try connection.readResponse()
                #expect(response.status == 200 && response.body.count == 3400)
            }
        }
    }

    /// RFC 9110 section 5.5: a field value is without the whitespace around it.
    @Test func headerValuesComeWithoutTheWhitespaceAroundThem() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /header HTTP/1.1\r\nHost: x\r\nX-Test: \t one two \t \r\nX-Test:three\r\nX-Test: \t\r\n\r\n")
            let body = try connection.readResponse().bodyText
            #expect(body == "[one two][three][]")
        }
    }

    /// RFC 9112 section 3.2.2: a server must accept a target in absolute form.
    @Test func absoluteFormTargetsReachTheirPath() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET http://x/hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try connection.readResponse().bodyText == "hello")
            try connection.send("GET HTTPS://x:443/late?ms=1 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try connection.readResponse().bodyText == "late")
            try connection.send("GET http://x HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try connection.readResponse().bodyText == "/ -> ")
            try connection.send("GET ftp://x/hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try connection.readResponse().bodyText == "ftp://x/hello -> malformed")
        }
    }

    @Test func headGetsHeadersOnly() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try connection.readResponse(forHEAD: true)
            #expect(response.status == 404 || response.status == 200)
            try connection.send(getRequest("/hello"))
            #expect(try connection.readResponse().bodyText == "hello")
        }
    }

    @Test func bodiesArriveWholeWithLengthOrChunked() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789")
            #expect(try connection.readResponse().bodyText == "10")
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n")
            #expect(try connection.readResponse().bodyText == "8")
        }
    }

    @Test func pathsKeepEncodedSlashesInsideTheirSegment() throws {
        try withServer { _, port, _ in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(getRequest("/v1/screens/a%2Fb"))
            #expect(try connection.readResponse().bodyText == "/v1/screens/a%2Fb -> v1|screens|a/b")
            try connection.send(getRequest("/v1/%zz"))
            #expect(try connection.readResponse().bodyText == "/v1/%zz -> malformed")
            try connection.send(getRequest("/a%00b"))
            #expect(try connection.readResponse().bodyText == "/a%00b -> a\u{0}b")
        }
    }
}
