import Foundation
import TabulaSamples
import TabulaTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.serialized) struct ServeProcessTests {
    /// The files a running process maps, from /proc (read to the end: its size shows as 0).
    func mappedLibraries(_ server: ServerProcess) throws -> String {
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(server.process.processIdentifier)/maps"))
        defer { try? file.close() }
        return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
    }

    @Test func libpqIsLoadedOnlyForThePostgreSQLStore() throws {
        let sqlite = try ServerProcess(arguments: ["--store", "sqlite"])
        #expect(!(try mappedLibraries(sqlite)).contains("libpq.so"))
        #expect(!(try mappedLibraries(sqlite)).contains("libkrb5"))
        let url = try PostgresCluster.shared.get().makeDatabase()
        let postgres = try ServerProcess(arguments: ["--store", "postgres", "--database-url", url])
        let created = try RawHTTPConnection(port: postgres.port)
        try created.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(try created.readResponse().status == 201)
        #expect(try mappedLibraries(postgres).contains("libpq.so"))
    }

    /// libcrypto is loaded when a durable store first hashes a token: never on the memory
    /// store, which keeps no token.
    @Test func libcryptoIsLoadedOnlyWhenATokenIsHashed() throws {
        let memory = try ServerProcess(arguments: ["--store", "memory"])
        let sqlite = try ServerProcess(arguments: ["--store", "sqlite"])
        for server in [memory, sqlite] {
            #expect(!(try mappedLibraries(server)).contains("libcrypto"))
            let created = try RawHTTPConnection(port: server.port)
            try created.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            #expect(try created.readResponse().status == 201)
        }
        #expect(!(try mappedLibraries(memory)).contains("libcrypto"))
        #expect(try mappedLibraries(sqlite).contains("libcrypto.so.3"))
    }

    /// ICU is loaded for string tables only; once the start has handed its loading pages
    /// back, a French screen is still written with ICU's rules.
    @Test func icuIsLoadedOnlyForStringTables() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let screens = directory.appendingPathComponent("screens")
        try FileManager.default.createDirectory(at: screens, withIntermediateDirectories: true)
        try Data(#"{"id": "plain", "title": "Plain", "sections": []}"#.utf8).write(to: screens.appendingPathComponent("plain.json"))
        let plain = try ServerProcess(arguments: ["--store", "memory", "--screens", screens.path])
        #expect(!(try mappedLibraries(plain)).contains("libicu"))

        let fixtures = try ServerProcess(arguments: ["--store", "memory"])
        #expect(try mappedLibraries(fixtures).contains("libicui18n.so"))
        let created = try RawHTTPConnection(port: fixtures.port)
        let body = #"{"client": {"locale": "fr"}}"#
        try created.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let session = try #require(try JSONSerialization.jsonObject(with: Data(try created.readResponse().body)) as? [String: Any])["session"] as? String
        let screen = try RawHTTPConnection(port: fixtures.port)
        try screen.send("GET /v1/screens/people HTTP/1.1\r\nHost: x\r\nX-Session: \(session ?? "")\r\n\r\n")
        let text = try screen.readResponse().bodyText
        #expect(text.contains(#""subtitle":"50 ans""#) && text.contains(#""title":"Personnes""#), "\(text)")
    }

    @Test func sigtermLetsTheRequestInProgressFinishThenExitsZero() throws {
        let server = try ServerProcess(arguments: ["--shutdown-grace", "5"])
        let setup = try RawHTTPConnection(port: server.port)
        try setup.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        let token = try #require(try JSONSerialization.jsonObject(with: Data(try setup.readResponse().body)) as? [String: Any])["session"] as? String
        let body = #"{"row": "wifi", "isOn": false}"#
        let slow = try RawHTTPConnection(port: server.port)
        // A slow upload: the event is in progress until its body is complete.
        try slow.send(
            "POST /v1/screens/settings/switch HTTP/1.1\r\nHost: x\r\nX-Session: \(token ?? "")\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                + String(body.prefix(10)))
        // In progress: the event's and the scrape's own.
        let inProgress = eventually {
            guard let scrape = try? RawHTTPConnection(port: server.port) else { return false }
            try? scrape.send(getRequest("/metrics"))
            let text = (try? scrape.readResponse().bodyText) ?? ""
            return text.split(separator: "\n").contains { $0.hasPrefix("tabula_http_requests_in_progress 2") }
        }
        #expect(inProgress, "the event's head was not received")
        let signalled = Date()
        server.signal(SIGTERM)
        // Once the signal is handled, the port refuses new connections.
        var refused = false
        while !refused && Date().timeIntervalSince(signalled) < 5 {
            do {
                _ = try RawHTTPConnection(port: server.port)
                usleep(10_000)
            } catch {
                refused = true
            }
        }
        #expect(refused, "new connections were still accepted 5 s after SIGTERM")
        #expect(server.process.isRunning)
        try slow.send(String(body.dropFirst(10)))
        let response = try slow.readResponse()
        #expect(response.status == 200)
        #expect(response.bodyText.contains(#""toRevision":1"#))
        #expect(server.waitForExit(seconds: 5) == 0)
        #expect(Date().timeIntervalSince(signalled) < 5)
        #expect(server.log.contains("received SIGTERM"))
        #expect(server.log.contains("stopped"))
    }

    /// Streams end at once on SIGTERM (their clients reconnect elsewhere): a long grace
    /// does not hold the exit for them.
    @Test func sigtermEndsOpenStreamsAtOnce() throws {
        let server = try ServerProcess(arguments: ["--store", "memory", "--shutdown-grace", "30"])
        let created = try RawHTTPConnection(port: server.port)
        try created.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        let token = try #require(created.readResponse().json.objectValue?["session"]?.stringValue)
        let streams = try (0..<3).map { _ in
            try EventStreamClient(port: server.port, path: "/v1/screens/settings/stream", headers: ["X-Session: \(token)"])
        }
        for stream in streams {
            #expect(stream.head.status == 200)
            #expect(try stream.nextEvent()?.event == "screen")
        }
        let signalled = Date()
        server.signal(SIGTERM)
        for stream in streams { #expect(try stream.nextEvent() == nil, "the stream ends") }
        #expect(server.waitForExit(seconds: 10) == 0)
        #expect(Date().timeIntervalSince(signalled) < 5, "streams held the shutdown")
    }

    @Test func sigintStopsAnIdleServerAtOnce() throws {
        let server = try ServerProcess()
        let started = Date()
        server.signal(SIGINT)
        #expect(server.waitForExit(seconds: 3) == 0)
        // An idle stop takes milliseconds; the margin is for ThreadSanitizer builds, whose
        // exit alone takes about a second.
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test func environmentVariablesConfigureTheServer() throws {
        let server = try ServerProcess(environment: ["TABULA_MAX_BODY": "100", "TABULA_LOG_LEVEL": "info"])
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 413)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response.bodyText.contains("larger than the limit of 100 bytes"))
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
    }

    @Test func optionsWinOverTheEnvironmentAndBadValuesAreNamed() throws {
        let bad = Process()
        bad.executableURL = tabulaExecutable
        bad.arguments = ["serve"]
        bad.environment = ["TABULA_PORT": "eighty"]
        let errors = Pipe()
        bad.standardError = errors
        bad.standardOutput = Pipe()
        try bad.run()
        bad.waitUntilExit()
        #expect(bad.terminationStatus != 0)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("TABULA_PORT=\"eighty\" is not a valid value"))

        let server = try ServerProcess(environment: ["TABULA_PORT": "eighty"])  // --port 0 wins
        #expect(server.port > 0)
    }

    /// docs/operations.md lists every option of `tabula serve` with its variable and the
    /// default the help prints (which the configuration types own).
    @Test func theOperationsGuideListsEveryOptionWithItsDefault() throws {
        let help = Process()
        help.executableURL = tabulaExecutable
        help.arguments = ["serve", "--help"]
        let output = Pipe()
        help.standardOutput = output
        try help.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        help.waitUntilExit()
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let option = try Regex(#"--([a-z-]+) <[a-z-]+> ([^(]|\([^e])*\(env (TABULA_[A-Z_]+)(, default:? ([^)]*))?\)"#)
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let rows = guide.split(separator: "\n").filter { $0.hasPrefix("| `--") }
        var checked = 0
        for match in flat.matches(of: option) {
            let name = String(flat[try #require(match.output[1].range)])
            let variable = String(flat[try #require(match.output[3].range)])
            // The row whose first cell names the option (others may mention it).
            let row = rows.first { $0.split(separator: "|").first?.contains("`--\(name)`") == true }
            #expect(row != nil, "docs/operations.md has no row for --\(name)")
            guard let row else { continue }
            #expect(row.contains(variable) || row.contains("…"), "--\(name): \(variable) is not in its row")
            if let range = match.output[5].range,
                flat[range].first?.isNumber == true || flat[range].contains("/") || flat[range] == "sqlite" || flat[range] == "info"
            {
                #expect(row.contains("`\(flat[range])`"), "--\(name): default \(flat[range]) is not in its row: \(row)")
            }
            checked += 1
        }
        #expect(checked >= 20, "the help's options were not all found: \(checked)")
    }

    @Test func aBadDefinitionDirectoryStopsTheStartWithEveryProblem() throws {
        let root = repositoryRoot.appendingPathComponent(InvalidDefinitionCase.directory).path
        let invalid = try #require(InvalidDefinitionCase(root: root, name: "every-problem-listed"))
        let directory = "\(root)/\(invalid.name)"
        #expect(throws: ServerProcessError.self) { try ServerProcess(arguments: ["--screens", directory]) }
        do {
            _ = try ServerProcess(arguments: ["--screens", directory])
        } catch {
            for problem in invalid.problems { #expect("\(error)".contains(problem.line)) }
        }
    }

    /// Runs `tabula healthcheck` with these arguments and environment; its exit status.
    func healthcheck(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> Int32 {
        let check = Process()
        check.executableURL = tabulaExecutable
        check.arguments = ["healthcheck"] + arguments
        check.environment = environment
        check.standardOutput = Pipe()
        check.standardError = Pipe()
        try check.run()
        check.waitUntilExit()
        return check.terminationStatus
    }

    @Test func healthcheckCommandAsksTheServer() throws {
        let server = try ServerProcess()
        #expect(try healthcheck(environment: ["TABULA_PORT": String(server.port)]) == 0)
        // The service's URL without a path asks /healthz.
        for url in ["http://127.0.0.1:\(server.port)", "http://127.0.0.1:\(server.port)/"] {
            #expect(try healthcheck(["--url", url]) == 0, "\(url)")
        }
        #expect(try healthcheck(["--url", "http://127.0.0.1:\(server.port)/nope"]) == 1)
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
        #expect(try healthcheck(["--url", "http://127.0.0.1:\(server.port)/healthz", "--timeout", "1"]) == 1)
    }

    /// Only the main thread takes the stop signals, in its wait: every other thread blocks
    /// them. The log's writer thread, started by the first logger, used to leave them
    /// unblocked, so a SIGTERM or SIGHUP sent while the main thread was starting or
    /// reloading ended the process at once.
    @Test func onlyTheMainThreadTakesTheStopSignals() throws {
        let server = try ServerProcess()
        let pid = server.process.processIdentifier
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").filter { $0 != String(pid) }
        #expect(tasks.count >= 3)
        let stopSignals: UInt64 = 1 << (UInt64(SIGHUP) - 1) | 1 << (UInt64(SIGINT) - 1) | 1 << (UInt64(SIGTERM) - 1)
        for task in tasks {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }.flatMap {
                UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16)
            }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? "?"
            guard let blocked else { continue }  // the thread ended meanwhile
            #expect(blocked & stopSignals == stopSignals, "thread \(task) (\(name)) leaves the stop signals unblocked")
        }
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
    }

    /// A URL is read as a URL: the port a number from 1 to 65535 (one past it used to wrap
    /// around to the server's), a host required, the scheme in any case, a query kept out of
    /// the authority; a TABULA_PORT that is no port says so.
    @Test func healthcheckReadsTheURLsHostAndPort() throws {
        let server = try ServerProcess()
        let port = server.port
        for url in ["HTTP://127.0.0.1:\(port)/healthz", "http://127.0.0.1:\(port)?probe=1", "http://127.0.0.1:\(port)/healthz#top"] {
            #expect(try healthcheck(["--url", url]) == 0, "\(url)")
        }
        for url in [
            "http://127.0.0.1:\(Int(port) + 65536)/healthz", "http://127.0.0.1:-1/healthz", "http://:\(port)/healthz", "http://[::1]:abc/healthz",
            "http://127.0.0.1:+\(port)/healthz",
        ] {
            #expect(try healthcheck(["--url", url, "--timeout", "1"]) == 1, "\(url)")
        }
        #expect(try healthcheck(environment: ["TABULA_PORT": "abc"]) == 1)
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
    }

    /// `--timeout` bounds the whole exchange: a server that accepts and never answers, or
    /// one that sends a byte now and then and never a line, fails the probe in time.
    @Test(.timeLimit(.minutes(1))) func healthcheckGivesUpOnASilentOrTricklingServer() throws {
        for trickles in [false, true] {
            let listener = try LoopbackListener.open(backlog: 4)
            defer { close(listener.descriptor) }
            let feeder = Thread {
                let connection = accept(listener.descriptor, nil, nil)
                guard connection >= 0 else { return }
                defer { close(connection) }
                for _ in 0..<60 {
                    if trickles, send(connection, "H", 1, Int32(MSG_NOSIGNAL)) != 1 { return }
                    usleep(100_000)
                }
            }
            feeder.start()
            let started = ContinuousClock.now
            #expect(try healthcheck(["--url", "http://127.0.0.1:\(listener.port)/healthz", "--timeout", "0.5"]) == 1)
            #expect(ContinuousClock.now - started < .seconds(3), "trickles: \(trickles)")
        }
    }

    /// Without --url the probe goes where TABULA_HOST says the server listens (on machines
    /// whose loopback has IPv6).
    @Test(.enabled(if: ipv6LoopbackWorks)) func healthcheckFollowsTheHostTheServerListensOn() throws {
        let server = try ServerProcess(arguments: ["--host", "::1"])
        #expect(try healthcheck(environment: ["TABULA_PORT": String(server.port), "TABULA_HOST": "::1"]) == 0)
        #expect(try healthcheck(environment: ["TABULA_PORT": String(server.port)]) == 1)  // 127.0.0.1: nobody there
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 5) == 0)
    }
}

/// Whether a socket can be bound to ::1 here (containers may run without IPv6).
let ipv6LoopbackWorks: Bool = {
    let socket = Glibc.socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { return false }
    defer { close(socket) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_loopback
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
    }
}()
