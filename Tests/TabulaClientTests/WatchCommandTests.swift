import Foundation
import TabulaModel
import TabulaTestSupport
import Testing

/// `tabula watch --json` as a user runs it, against a service that restarts, loses its
/// connections and changes its definitions: after each, its last line is the screen `GET`
/// answers within 10 seconds. SIGINT ends it with 0; a session gone ends it with 3.
@Suite(.serialized) struct WatchCommandTests {
    @Test(.timeLimit(.minutes(3))) func staysCurrentThroughFaultsAndStopsCleanly() async throws {
        let service = try LiveService()
        let watch = try WatchProcess(["protocol-settings", "--url", service.url, "--json", "--heartbeat", "1s"])
        let token = try await watch.session()
        try await watch.waitUntilCurrent(service, token: token)

        try switchRow(service, token: token, "offline-maps", true)
        try await watch.waitUntilCurrent(service, token: token)
        try service.killAndRestart()
        try switchRow(service, token: token, "departure-reminder", false)
        try await watch.waitUntilCurrent(service, token: token)
        service.proxy.cutConnections()
        try switchRow(service, token: token, "offline-maps", false)
        try await watch.waitUntilCurrent(service, token: token)
        let before = try watch.lastScreen()?.definition
        try service.changeDefinition("protocol-settings")
        try await watch.waitUntilCurrent(service, token: token)
        #expect(try watch.lastScreen()?.definition != before)

        watch.process.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    @Test(.timeLimit(.minutes(1))) func aDeletedSessionEndsItWithThree() async throws {
        let service = try LiveService()
        let watch = try WatchProcess(["settings", "--url", service.url, "--json", "--heartbeat", "1s"])
        let token = try await watch.session()
        try await watch.waitUntilCurrent(service, token: token)
        let id = try service.sessionID(token: token)
        #expect(try service.backend("DELETE", "/v1/sessions/\(id)").status == 204)
        #expect(try await watch.exitStatus() == 3)
        #expect(watch.standardError.contains("session"))
    }

    @Test(.timeLimit(.minutes(1))) func anUnknownSessionEndsItWithThree() async throws {
        let service = try LiveService()
        let watch = try WatchProcess(["settings", "--url", service.url, "--session", "never-issued-0123456789abcdefghij"])
        #expect(try await watch.exitStatus() == 3)
        #expect(!watch.standardError.isEmpty)
    }

    /// An item for a screen that is not an item screen is refused (400) as asked, and would
    /// be again: the watch says so and fails at once, rather than asking forever.
    @Test(.timeLimit(.minutes(1))) func aRequestTheServiceRefusesEndsItWithItsReason() async throws {
        let service = try LiveService()
        let watch = try WatchProcess(["settings", "--url", service.url, "--item", "x"])
        #expect(try await watch.exitStatus() == 1)
        #expect(watch.standardError.contains("not an item screen") || watch.standardError.contains("is not one"), "\(watch.standardError)")
    }

    /// A service run with `--api-key`: the watch sends the key it is given, and without it,
    /// or with a wrong one, fails with 1 and says what to do, rather than calling the session
    /// ended.
    @Test(.timeLimit(.minutes(1))) func aServiceWithAnAPIKeyIsFollowedWithTheKey() async throws {
        let key = "watch-tests-api-key-0123456789"
        let service = try LiveService(["--api-key", key])
        let without = try WatchProcess(["settings", "--url", service.url])
        #expect(try await without.exitStatus() == 1)
        #expect(without.standardError.contains("requires an API key: give it with --api-key"), "\(without.standardError)")
        let wrong = try WatchProcess(["settings", "--url", service.url, "--api-key", "not-the-key-0123456789"])
        #expect(try await wrong.exitStatus() == 1)
        #expect(wrong.standardError.contains("refused the API key"), "\(wrong.standardError)")

        let watch = try WatchProcess(["settings", "--url", service.url, "--json", "--heartbeat", "1s", "--api-key", key])
        let token = try await watch.session()
        let answer = try service.request(
            "POST", "/v1/screens/settings/switch",
            headers: ["Authorization: Bearer \(key)", "X-Session: \(token)", "Content-Type: application/json"],
            body: #"{"row":"bluetooth","isOn":true}"#)
        #expect(answer.status == 200, "\(answer.bodyText)")
        try await watch.waitForLastScreen("the switch to reach the watch through its stream") { $0.revision == 1 }
        // The same session resumed without the key: refused as asked, not ended.
        let resumed = try WatchProcess(["settings", "--url", service.url, "--session", token])
        #expect(try await resumed.exitStatus() == 1)
        watch.process.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    /// TabulaCurl goes straight to the host it is given: a proxy named in the environment,
    /// here one that nothing listens on, is not used (for the service's calls to the app's
    /// backend, it would see the signed bodies and the secure values they carry).
    @Test(.timeLimit(.minutes(1))) func aProxyInTheEnvironmentIsNotUsed() async throws {
        let service = try LiveService()
        let nowhere = "http://127.0.0.1:9"
        let watch = try WatchProcess(
            ["settings", "--url", service.url, "--json", "--heartbeat", "1s"],
            environment: ["http_proxy": nowhere, "HTTPS_PROXY": nowhere, "ALL_PROXY": nowhere, "all_proxy": nowhere])
        let token = try await watch.session()
        try await watch.waitUntilCurrent(service, token: token)
        watch.process.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    /// With `--session` and `--locale`, the watch waits for a service it cannot reach, as it
    /// does after a disconnection, then puts the language in the session and follows it.
    @Test(.timeLimit(.minutes(1))) func aLanguageForAGivenSessionWaitsForTheService() async throws {
        let service = try LiveService()
        let created = try service.request("POST", "/v1/sessions")
        let token = try #require(try JSONParser().parse(created.body).objectValue?["session"]?.stringValue)
        service.kill()
        let watch = try WatchProcess(["settings", "--url", service.url, "--session", token, "--locale", "fr", "--json", "--heartbeat", "1s"])
        try await Task.sleep(for: .seconds(1))
        #expect(watch.process.isRunning, "the watch gave up on a service it could not reach: \(watch.standardError)")
        try service.restart()
        try await watch.waitForLastScreen("the settings in French once the service is back") { $0.title == "Réglages" }
        // Each change of connection is a line on standard error: reached, lost, reached again.
        try await watch.waitForStandardError(["tabula watch: connected"])
        service.kill()
        try await watch.waitForStandardError(["tabula watch: connected", "tabula watch: retrying: "])
        try service.restart()
        try await watch.waitForStandardError(["tabula watch: connected", "tabula watch: retrying: ", "tabula watch: connected"])
        watch.process.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    /// A backend's state may hold control characters: the table writes them as escapes, so
    /// that no escape sequence reaches the terminal and no line break splits a row.
    @Test(.timeLimit(.minutes(1))) func theTableEscapesControlCharacters() async throws {
        let service = try LiveService()
        let created = try service.backend(
            "POST", "/v1/sessions", headers: ["Content-Type: application/json"],
            body: #"{"state":{"users":[{"id":"u1","name":"Evil\u001b]0;title\u0007\u001b[2J\nNext","description":"x"}]}}"#)
        #expect(created.status == 201, "\(created.bodyText)")
        let token = try #require(try JSONParser().parse(created.body).objectValue?["session"]?.stringValue)
        let watch = try WatchProcess(["users", "--url", service.url, "--session", token])
        // Generous: the whole suite, run in parallel on two cores, can keep the processes
        // waiting for a core a long while.
        let deadline = Date().addingTimeInterval(30)
        while !watch.standardOutput.contains("Evil"), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let output = watch.standardOutput
        #expect(output.contains(#"Evil\u{1B}]0;title\u{7}\u{1B}[2J\u{A}Next"#), "\(output)\n\(watch.standardError)")
        #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(output)")
        watch.process.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    /// A screen or an item the service does not have, named from the start, is a usage
    /// error: the session is not gone. An item screen without `--item` says to give one. The
    /// screen is asked for before a session is made, so none is left behind (one was).
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            (["nosuch"], "no screen \"nosuch\""),
            (["people-details", "--item", "nobody"], "no item \"nobody\" on the screen \"people-details\""),
            (["people-details"], "\"people-details\" is an item screen: name the item it shows with --item ID"),
        ])
    func aScreenOrItemTheServiceLacksEndsItWithOne(_ arguments: [String], _ message: String) async throws {
        let service = try LiveService()
        let watch = try WatchProcess(arguments + ["--url", service.url])
        #expect(try await watch.exitStatus() == 1)
        #expect(watch.standardError.contains(message), "\(watch.standardError)")
        #expect(!watch.standardError.contains("session: "), "\(watch.standardError)")
        let metrics = try service.request("GET", "/metrics").bodyText
        let sessions = metrics.split(separator: "\n").first { $0.hasPrefix("tabula_sessions ") }
        #expect(sessions.flatMap { Double($0.dropFirst("tabula_sessions ".count)) } == 0, "\(metrics)")
    }

    /// A service behind TLS whose certificate a private CA signed (nginx in front of it):
    /// refused under the system's CAs, followed, stream and all, once `--ca-file` gives the CA.
    @Test(.timeLimit(.minutes(3))) func aServiceOfAPrivateAuthorityIsFollowedWithItsCAFile() async throws {
        let service = try LiveService()
        let certificates = try TestCertificates()
        let tls = try NginxProcess { port in
            """
            server {
                listen 127.0.0.1:\(port) ssl;
                ssl_certificate \(certificates.certificate);
                ssl_certificate_key \(certificates.key);
                location / {
                    proxy_pass http://127.0.0.1:\(service.port);
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_buffering off;
                }
            }
            """
        }
        let url = "https://127.0.0.1:\(tls.port)"
        let untrusted = try WatchProcess(["protocol-settings", "--url", url])
        #expect(try await untrusted.exitStatus() == 1)
        #expect(untrusted.standardError.contains("certificate"), "\(untrusted.standardError)")

        let watch = try WatchProcess(["protocol-settings", "--url", url, "--json", "--heartbeat", "1s", "--ca-file", certificates.authority])
        let token = try await watch.session()
        try await watch.waitUntilCurrent(service, token: token)
        try switchRow(service, token: token, "offline-maps", true)
        try await watch.waitUntilCurrent(service, token: token)
        watch.process.interrupt()
        #expect(try await watch.exitStatus() == 0)

        // A CA file for a peer that shows no certificate, or one that is not a PEM file, is a usage error.
        for (arguments, message) in [
            (["--url", service.url, "--ca-file", certificates.authority], "--ca-file is for an https service"),
            (["--url", url, "--ca-file", certificates.key], "holds no certificate"),
            (["--url", url, "--ca-file", "/nonexistent/ca.pem"], "/nonexistent/ca.pem"),
        ] {
            let refused = try WatchProcess(["settings"] + arguments)
            #expect(try await refused.exitStatus() == 64)
            #expect(refused.standardError.contains(message), "\(arguments): \(refused.standardError)")
        }
    }

    /// A screen larger than the mebibyte a backend's answer may be is still a screen: the
    /// watch shows it.
    @Test(.timeLimit(.minutes(3))) func aLargeScreenIsShown() async throws {
        let rows = (0..<12_000).map { #"{"id":"r\#($0)","kind":"basic","title":"\#(String(repeating: "x", count: 150))"}"# }
        let screen = #"{"id":"big","title":"Big","revision":0,"definition":"d1","sections":[{"id":"s","rows":[\#(rows.joined(separator: ","))]}]}"#
        #expect(screen.utf8.count > 2 << 20)
        let server = try ScriptedServer { request in
            switch (request.method, request.path) {
            case ("POST", "/v1/sessions"): .json(#"{"session":"big-screen-token","id":"s_aaaaaaaaaaaaaaaaaaaa","revision":0,"client":{}}"#, status: 201)
            case ("GET", "/v1/screens/big"): .json(screen)
            case ("GET", "/v1/screens/big/stream"):
                .streamed(status: 200, contentType: "text/event-stream") { send in
                    while send(Array(":\n\n".utf8)) { usleep(200_000) }
                }
            default: .json(#"{"type":"about:blank","title":"Not Found","status":404}"#, status: 404)
            }
        }
        defer { server.close() }
        let watch = try WatchProcess(["big", "--url", server.url, "--json"])
        var shown: Screen?
        let deadline = ContinuousClock.now + .seconds(90)
        while shown == nil, ContinuousClock.now < deadline {
            shown = try? watch.lastScreen()
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(shown?.sections.first?.rows.count == 12_000, "\(watch.standardError)")
        watch.process.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    private func switchRow(_ service: LiveService, token: String, _ row: String, _ isOn: Bool) throws {
        let answer = try service.request(
            "POST", "/v1/screens/protocol-settings/switch", headers: ["X-Session: \(token)", "Content-Type: application/json"],
            body: #"{"row":"\#(row)","isOn":\#(isOn)}"#)
        #expect(answer.status == 200)
    }
}

/// `tabula watch ARGUMENTS`, its output in files.
final class WatchProcess: @unchecked Sendable {
    let process = Process()
    private let output: URL
    private let errors: URL

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("tabula-watch-\(UUID().uuidString).out")
        errors = FileManager.default.temporaryDirectory.appendingPathComponent("tabula-watch-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = tabulaExecutable
        process.arguments = ["watch"] + arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: output)
        try? FileManager.default.removeItem(at: errors)
    }

    /// Waits for it to exit, without holding a thread: its status.
    func exitStatus(seconds: Double = 20) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            guard Date() < deadline else { throw ServerProcessError("tabula watch did not exit within \(seconds) s") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    var standardError: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    /// Waits until standard error has lines starting with `prefixes`, in that order, among
    /// others (10 seconds at most).
    func waitForStandardError(_ prefixes: [String]) async throws {
        let deadline = Date().addingTimeInterval(10)
        while true {
            var wanted = prefixes[...]
            for line in standardError.split(separator: "\n") where wanted.first.map(line.hasPrefix) == true { wanted = wanted.dropFirst() }
            if wanted.isEmpty { return }
            guard Date() < deadline else { throw ServerProcessError("standard error lacks \(prefixes) in order: \(standardError)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    var standardOutput: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// Waits until the screen of its last line is as `expected` says (10 seconds at most).
    func waitForLastScreen(_ what: String, _ expected: (Screen) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(30)
        while true {
            if let screen = try? lastScreen(), expected(screen) { return }
            guard Date() < deadline else { throw ServerProcessError("timed out waiting for \(what): \(standardError)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The token of the session it created, from `session: TOKEN` on standard error.
    func session() async throws -> String {
        for _ in 0..<200 {
            if let line = standardError.split(separator: "\n").first(where: { $0.hasPrefix("session: ") }) {
                return String(line.dropFirst("session: ".count))
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerProcessError("tabula watch printed no session: \(standardError)")
    }

    /// The screen of its last line: `{"definition", "revision", "screen"}`.
    func lastScreen() throws -> Screen? {
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").last else { return nil }
        let object = try JSONParser().parse(String(line)).objectValue
        guard let json = object?["screen"] else { return nil }
        let screen = try Screen(json: json)
        #expect(object?["revision"]?.intValue == screen.revision)
        #expect(object?["definition"]?.stringValue == screen.definition)
        return screen
    }

    /// Waits, at most 10 seconds, until its last line is the screen `GET` answers (at an
    /// older revision when commits since did not change this screen). A full parallel run on
    /// two cores can keep this test's task from a thread for far longer than that: the time
    /// it was kept waiting is not the watch's, so it lengthens the bound, and the watch's
    /// screen is looked at once more when the bound is over.
    func waitUntilCurrent(_ service: LiveService, token: String) async throws {
        var deadline = Date().addingTimeInterval(10)
        var last: Screen?
        while true {
            last = try? lastScreen()
            if var shown = last, let id = Optional(shown.id), let current = try? service.screen(id, token: token),
                shown.revision <= current.revision
            {
                shown.revision = current.revision
                if shown == current { return }
            }
            let asleep = Date()
            guard asleep < deadline else { break }
            try await Task.sleep(for: .milliseconds(50))
            let keptWaiting = Date().timeIntervalSince(asleep) - 0.05
            if keptWaiting > 1 { deadline = deadline.addingTimeInterval(keptWaiting) }
        }
        throw ServerProcessError(
            "tabula watch was not current within 10 s; its last screen: \(last.map { String(decoding: $0.jsonBytes, as: UTF8.self) } ?? "none")\n\(standardError)"
        )
    }
}
