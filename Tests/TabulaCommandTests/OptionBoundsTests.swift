import Foundation
import Testing

/// Values a command line can give that would otherwise trap or overflow are refused with a
/// usage error (exit 64) that names the option.
@Suite struct OptionBoundsTests {
    /// `tabula serve` with the arguments, on screens that do not exist: a run that accepted
    /// its options ends (exit 1) instead of serving.
    private func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try runTabula(["serve", "--store", "memory", "--port", "0", "--screens", "/nonexistent"] + arguments, environment: environment)
    }

    /// `tabula watch`'s options are usage errors too, before it asks anything.
    @Test func watchOptionsOutsideTheirRangesAreRefused() throws {
        for (arguments, message) in [
            (["--url", "http://127.0.0.1:1", "--heartbeat", "99999999999999999d"], "--heartbeat 99999999999999999d is not a duration"),
            (["--url", "http://127.0.0.1:1", "--heartbeat", "0"], "--heartbeat 0 is not a duration"),
            (["--url", "ftp://example.com"], "--url ftp://example.com is not an http:// or https:// URL"),
            // A query would hold every path appended to it.
            (["--url", "http://127.0.0.1:1/?x=1"], "--url http://127.0.0.1:1/?x=1 is not an http:// or https:// URL without a query"),
            // Schemes are in any case: this URL passes, and the heartbeat is what is refused.
            (["--url", "HTTP://127.0.0.1:1", "--heartbeat", "0"], "--heartbeat 0 is not a duration"),
            (
                ["--url", "http://127.0.0.1:1", "--api-key", "key\nwith-a-line-break"],
                "the API key (--api-key or TABULA_API_KEY) cannot be a service's: it must be printable ASCII"
            ),
        ] {
            let result = try runTabula(["watch", "settings"] + arguments)
            #expect(result.status == 64 && result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
    }

    @Test func durationsBeyondAHundredYearsAreRefused() throws {
        for option in ["--session-ttl", "--idempotency-ttl"] {
            // 40,000 days is past the 100-year bound (larger values overflowed the stores'
            // millisecond arithmetic).
            let result = try serve([option, "40000d"])
            #expect(result.status == 64, "\(option)")
            #expect(result.standardError.contains("\(option) (TABULA_"), "the option and its variable named: \(result.standardError)")
            #expect(result.standardError.contains("is not a duration of at least 1s"), "\(result.standardError)")
        }
    }

    /// `--max-connections 9223372036854775807` overflowed when streams were added to it, and
    /// `--threads` and `--connection-timeout` trapped converting to libmicrohttpd's settings.
    @Test func numericOptionsOutsideTheirRangesAreRefused() throws {
        let huge = "9223372036854775807"
        let cases: [(String, String)] = [
            ("--max-connections", huge), ("--threads", huge), ("--connection-timeout", huge), ("--max-streams", huge),
            ("--max-streams-per-session", huge), ("--max-body", huge), ("--connection-memory-limit", huge),
            ("--max-connections-per-ip", "-1"), ("--connection-memory-limit", "100"), ("--threads", "0"), ("--keep-revisions", "0"),
            ("--keep-revisions", huge), ("--keep-definitions", huge), ("--database-pool-size", huge), ("--max-state-bytes", huge),
            ("--max-list-length", huge), ("--shutdown-grace", "inf"), ("--shutdown-grace", "nan"), ("--shutdown-grace", "-1"),
            ("--shutdown-grace", "1e300"), ("--header-timeout", huge), ("--header-timeout", "0"), ("--max-new-sessions-per-minute", "-1"),
            ("--max-client-kinds", "0"), ("--max-history-bytes", "10"), ("--max-answers-per-session", "0"), ("--state-cache-bytes", "1"),
            ("--screen-cache-bytes", "1"),
            // Without --actions-url too: a value out of range is a mistake either way.
            ("--actions-concurrency", "0"),
        ]
        for (option, value) in cases {
            let result = try serve(["\(option)=\(value)"])
            #expect(result.status == 64, "\(option) \(value): \(result.standardError)")
            #expect(result.standardError.contains("\(option) must be between"), "\(option) \(value): \(result.standardError)")
        }
        let environment = try serve([], environment: ["TABULA_THREADS": huge])
        #expect(environment.status == 64 && environment.standardError.contains("--threads must be between 1 and 1024"), "\(environment.standardError)")
        let proxy = try serve(["--trusted-proxy", "10.0.0.0/8,nginx"])
        #expect(proxy.status == 64 && proxy.standardError.contains(#"trusted proxy "nginx" is not an IPv4 or IPv6 address"#), "\(proxy.standardError)")
        let schemes = try serve(["--open-url-schemes", "myapp,java script"])
        #expect(schemes.status == 64 && schemes.standardError.contains(#""java script" is not a URL scheme"#), "\(schemes.standardError)")
        let script = try serve(["--open-url-schemes", "myapp,javascript"])
        #expect(script.status == 64 && script.standardError.contains("no client may be given one"), "\(script.standardError)")
        let timeout = try serve(["--actions-timeout", "1h"])
        #expect(
            timeout.status == 64 && timeout.standardError.contains(#"--actions-timeout (or TABULA_ACTIONS_TIMEOUT) "1h" is not a duration"#),
            "\(timeout.standardError)")
        // A value from the environment is named by its variable as well as its option.
        for (variable, message) in [
            ("TABULA_LOG_LEVEL", "--log-level (or TABULA_LOG_LEVEL)"),
            ("TABULA_ACTIONS_TIMEOUT", "--actions-timeout (or TABULA_ACTIONS_TIMEOUT)"),
            ("TABULA_DEFAULT_LOCALE", "--default-locale (or TABULA_DEFAULT_LOCALE)"),
        ] {
            let result = try serve([], environment: [variable: "not valid"])
            #expect(result.status == 64 && result.standardError.contains(message), "\(variable): \(result.standardError)")
        }
        // A value is the argument after its option, even one that starts with "-": it used to
        // be read as another option, and the value as missing.
        let negative = try serve(["--port", "-1"])
        #expect(negative.status == 64 && negative.standardError.contains("--port must be between 0 and 65535"), "\(negative.standardError)")
        let watch = try runTabula(["watch", "settings", "--url", "http://127.0.0.1:1", "--heartbeat", "-5s"])
        #expect(watch.status == 64 && watch.standardError.contains("--heartbeat -5s is not a duration"), "\(watch.standardError)")
        let port = try serve(["--port", "70000"])
        #expect(port.status == 64 && port.standardError.contains("--port must be between 0 and 65535"), "\(port.standardError)")
        // Each with its own command's usage, not the root's.
        #expect(port.standardError.contains("Usage: tabula serve"), "\(port.standardError)")
        for (arguments, usage) in [
            (["preview", "--port", "70000"], "Usage: tabula preview"),
            (["example-backend", "--secret", "s", "--port", "70000"], "Usage: tabula example-backend"),
        ] {
            let result = try runTabula(arguments)
            #expect(result.status == 64 && result.standardError.contains("--port must be between 0 and 65535"), "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(usage), "\(arguments): \(result.standardError)")
        }
    }

    /// A CA file curl could not use would fail every call at run time: the start says why.
    @Test func aCertificateAuthoritiesFileMustBeAPEMFileForAnHTTPSBackend() throws {
        let scratch = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let notPEM = scratch.appendingPathComponent("ca.der").path
        try Data([0x30, 0x82, 0x01]).write(to: URL(fileURLWithPath: notPEM))
        let backend = ["--actions-secret", "0123456789abcdef"]
        for (arguments, message) in [
            (["--actions-ca-file", notPEM], "--actions-ca-file needs an https --actions-url"),
            (backend + ["--actions-url", "http://127.0.0.1:9", "--actions-ca-file", notPEM], "is for an https backend"),
            (backend + ["--actions-url", "https://127.0.0.1:9", "--actions-ca-file", "/nonexistent/ca.pem"], "/nonexistent/ca.pem"),
            (backend + ["--actions-url", "https://127.0.0.1:9", "--actions-ca-file", notPEM], "holds no certificate; give a PEM file"),
        ] {
            let result = try serve(arguments)
            #expect(result.status == 64 && result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
    }

    /// A base URL names a host: `http:///x` and `http://:8080` used to pass, and every call
    /// then failed at run time.
    @Test func aBaseURLNeedsAHost() throws {
        for url in ["http:///tabula", "http://:8080/x", "https://"] {
            let serve = try serve(["--actions-url", url, "--actions-secret", "0123456789abcdef"])
            #expect(serve.status == 64 && serve.standardError.contains("is not an http or https URL"), "\(url): \(serve.standardError)")
            let watch = try runTabula(["watch", "settings", "--url", url])
            #expect(watch.status == 64 && watch.standardError.contains("is not an http:// or https:// URL"), "\(url): \(watch.standardError)")
        }
    }

    /// An empty secret would make any signature valid: the example backend refuses it, as
    /// `serve` refuses an empty `--actions-secret`.
    @Test(.timeLimit(.minutes(1))) func theExampleBackendRefusesAnEmptySecret() throws {
        for (arguments, environment) in [(["--secret", ""], [:]), ([], ["TABULA_ACTIONS_SECRET": ""])] {
            let result = try runTabula(["example-backend", "--port", "0"] + arguments, environment: environment)
            #expect(result.status == 64 && result.standardError.contains("give the secret"), "\(arguments): \(result.standardError)")
        }
    }

    @Test func keysShorterThanSixteenCharactersAreRefused() throws {
        for option in ["--api-key", "--backend-key"] {
            let result = try serve([option, "ab"])
            #expect(result.status == 64, "\(option)")
            #expect(result.standardError.contains("at least 16"), "\(result.standardError)")
        }
        let environment = try serve([], environment: ["TABULA_BACKEND_KEY": "fifteen-chars-k"])
        #expect(environment.status == 64 && environment.standardError.contains("it has 15 characters"), "\(environment.standardError)")
    }

    /// A data directory that cannot be made says why: the mkdir result used to be ignored,
    /// and every failure read "No such file or directory".
    @Test func aDataDirectoryThatCannotBeUsedSaysWhy() throws {
        let scratch = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        func start(_ dataDirectory: String, prefix: [String] = []) throws -> CommandResult {
            try runTabula(["serve", "--store", "sqlite", "--port", "0", "--data-dir", dataDirectory], prefix: prefix)
        }
        let notADirectory = try start(file.path)
        #expect(notADirectory.status == 1 && notADirectory.standardError.contains("exists and is not a directory"), "\(notADirectory.standardError)")
        let underAFile = try start(file.path + "/data")
        #expect(underAFile.status == 1 && underAFile.standardError.contains("\(file.path): it exists and is not a directory"), "\(underAFile.standardError)")

        // A directory its user may not write in. Root may write anywhere, so as root the
        // command runs as nobody.
        let locked = scratch.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
        let asNobody = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] : []
        let denied = try start(locked.path + "/data", prefix: asNobody)
        #expect(denied.status == 1 && denied.standardError.contains("Permission denied"), "\(denied.standardError)")
        #expect(!denied.standardError.contains("No such file or directory"), "\(denied.standardError)")
    }

    /// A thread the system refuses ends the start with the reason (it used to go unnoticed,
    /// and a join of the thread never made was undefined). As root, the limit on processes
    /// binds only another user: run as nobody with room for two.
    @Test(.enabled(if: getuid() == 0)) func aThreadTheSystemRefusesEndsTheStartWithTheReason() throws {
        let result = try runTabula(
            ["serve", "--store", "memory", "--port", "0"],
            prefix: ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/prlimit", "--nproc=2"])
        #expect(result.status == 71, "\(result.standardError)")
        #expect(result.standardError.contains("cannot start a thread: Resource temporarily unavailable"), "\(result.standardError)")
    }

    @Test func aHealthcheckTimeoutMustBeFinite() throws {
        for timeout in ["inf", "nan", "1e20", "0", "0.0000001"] {
            let result = try runTabula(["healthcheck", "--timeout", timeout, "--url", "http://127.0.0.1:1/healthz"])
            #expect(result.status == 64, "\(timeout)")
            #expect(result.standardError.contains("--timeout must be"), "\(result.standardError)")
        }
    }
}
