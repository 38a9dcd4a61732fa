import Foundation
import TabulaTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.serialized) struct OperationsTests {
    @Test func metricsCountRequestsRejectionsAndConnections() throws {
        let server = try ServerProcess()
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(getRequest("/healthz"))
        #expect(try connection.readResponse().status == 200)
        try connection.send(getRequest("/nope"))
        #expect(try connection.readResponse().status == 404)
        try connection.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(try connection.readResponse().status == 405)
        let refused = try RawHTTPConnection(port: server.port)
        try refused.send("POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n")
        #expect(try refused.readResponse().status == 501)

        try connection.send(getRequest("/metrics"))
        let metrics = try connection.readResponse()
        #expect(metrics.status == 200)
        #expect(metrics.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let text = metrics.bodyText
        #expect(text.contains(#"tabula_http_requests_total{route="/healthz",status="200"} 1"#))
        #expect(text.contains(#"tabula_http_requests_total{route="-",status="404"} 1"#))
        #expect(text.contains(#"tabula_http_requests_total{route="/healthz",status="405"} 1"#))
        #expect(text.contains(#"tabula_http_rejected_requests_total{reason="unsupported_transfer_encoding"} 1"#))
        #expect(text.contains(#"tabula_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"}"#))
        #expect(text.contains("tabula_http_open_connections "))
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
    }

    @Test func metricsShowEveryFamilyFromTheFirstScrape() throws {
        let server = try ServerProcess()
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(getRequest("/metrics"))
        let text = try connection.readResponse().bodyText
        for line in [
            "# TYPE tabula_http_requests_total counter",
            "# TYPE tabula_http_request_duration_seconds histogram",
            "# TYPE tabula_events_total counter",
            "# TYPE tabula_change_set_items histogram",
            #"tabula_change_set_items_bucket{le="+Inf"} 0"#,
            "tabula_change_set_items_count 0",
            "# TYPE tabula_http_rejected_requests_total counter",
            #"tabula_http_rejected_requests_total{reason="body_too_large"} 0"#,
            #"tabula_http_rejected_requests_total{reason="uri_too_long"} 0"#,
            "tabula_http_open_connections 1",
            "tabula_http_requests_in_progress 1",
            "tabula_sessions 0",
            "tabula_open_streams 0",
            "# TYPE tabula_definition_reloads_total counter",
            #"tabula_definition_reloads_total{outcome="refused"} 0"#,
            "# TYPE tabula_action_calls_total counter",
            "# TYPE tabula_action_call_duration_seconds histogram",
            "# TYPE tabula_limit_reached_total counter",
        ] {
            #expect(text.contains(line), "\(line)")
        }
        // libmicrohttpd's own refusal of a request without Host counts once.
        let refused = try RawHTTPConnection(port: server.port)
        try refused.send("GET /healthz HTTP/1.1\r\n\r\n")
        #expect(try refused.readResponse().status == 400)
        // libmicrohttpd may log the refusal just after sending it, so look for a while.
        var counted = ""
        for _ in 0..<50 where !counted.contains(#"reason="malformed_request"} 1"#) {
            usleep(20_000)
            try connection.send(getRequest("/metrics"))
            counted = try connection.readResponse().bodyText
        }
        #expect(counted.split(separator: "\n").contains(#"tabula_http_rejected_requests_total{reason="malformed_request"} 1"#))
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
    }

    @Test func oneLogLinePerRequestWithMethodPathStatusAndDuration() throws {
        let server = try ServerProcess()
        let connection = try RawHTTPConnection(port: server.port)
        for path in ["/healthz", "/missing"] {
            try connection.send(getRequest(path))
            _ = try connection.readResponse()
        }
        // The access log is buffered: its lines are written out within a moment.
        #expect(server.waitForLog(containing: ["GET /healthz 200 ", "GET /missing 404 "]))
        let lines = server.log.split(separator: "\n")
        let line = lines.filter { $0.contains("GET /healthz 200 ") }
        #expect(line.count == 1)
        #expect(line.first?.contains(" info tabula: [TabulaService] GET /healthz 200 ") == true)
        #expect(line.first?.hasSuffix("ms client=127.0.0.1") == true)
        #expect(lines.filter { $0.contains("GET /missing 404 ") }.count == 1)
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
    }

    /// The method and target are the client's bytes: their control characters are written
    /// as escapes, as in every other line, so that no terminal sequence reaches a reader.
    @Test func aRequestsControlCharactersAreEscapedInItsLine() throws {
        let server = try ServerProcess()
        for request in ["GET /v1/\u{1B}[2Jx\u{07} HTTP/1.1", "G\u{1B}T /x HTTP/1.1"] {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("\(request)\r\nHost: x\r\nConnection: close\r\n\r\n")
            _ = try connection.readResponse()
        }
        #expect(server.waitForLog(containing: [#"GET /v1/\u{1B}[2Jx\u{7} 404 "#, #"G\u{1B}T /x 400 "#]), "\(server.log)")
        #expect(!server.log.unicodeScalars.contains("\u{1B}") && !server.log.unicodeScalars.contains("\u{07}"))
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
    }

    /// A session's requests name it by a prefix of its token, the quick GET path (which keeps
    /// only that prefix) as the full path does; the whole token never reaches the log.
    @Test func sessionLinesShowTheTokensPrefixOnly() throws {
        let server = try ServerProcess()
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        let token = try #require(try connection.readResponse().json.objectValue?["session"]?.stringValue)
        let body = #"{"row": "wifi", "isOn": false}"#
        try connection.send(
            "POST /v1/screens/settings/switch HTTP/1.1\r\nHost: x\r\nX-Session: \(token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(try connection.readResponse().status == 200)
        try connection.send("GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(token)\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
        #expect(server.waitForLog(containing: ["POST /v1/screens/settings/switch 200 ", "GET /v1/screens/settings 200 "]))
        let lines = server.log.split(separator: "\n")
        let suffix = "ms client=127.0.0.1 session=\(token.prefix(8))"
        for request in ["POST /v1/screens/settings/switch 200 ", "GET /v1/screens/settings 200 "] {
            let matching = lines.filter { $0.contains(request) }
            #expect(matching.count == 1, "\(request)")
            #expect(matching.first?.hasSuffix(suffix) == true, "\(request): \(matching)")
        }
        #expect(!server.log.contains(token))
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
    }

    @Test func logLevelWarningSilencesRequestLines() throws {
        let quiet = try ServerProcess(arguments: ["--log-level", "warning"])
        let connection = try RawHTTPConnection(port: quiet.port)
        try connection.send(getRequest("/healthz"))
        _ = try connection.readResponse()
        // Once it has exited, the server has written every line it would.
        quiet.signal(SIGTERM)
        #expect(quiet.waitForExit(seconds: 5) == 0)
        #expect(!quiet.log.contains("GET /healthz"))
    }

    @Test func problemDocumentsFollowRFC9457() throws {
        let server = try ServerProcess()
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
        #expect(response.header("Content-Type") == "application/problem+json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(document["type"] as? String == "urn:tabula:problem:method-not-allowed")
        #expect(document["title"] as? String == "Method Not Allowed")
        #expect(document["status"] as? Int == 405)
        #expect((document["detail"] as? String)?.contains("use GET, HEAD") == true)

        // A path is client text: the detail quotes its first 64 characters only.
        let long = String(repeating: "a", count: 3_000)
        for (request, status) in [("GET /nope/\(long)", 404), ("DELETE /v1/screens/\(long)", 405)] {
            try connection.send("\(request) HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = try connection.readResponse()
            #expect(answer.status == status)
            let document = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            let detail = try #require(document?["detail"] as? String)
            #expect(detail.count < 200, "\(detail.prefix(80))")
        }
    }
}
