import ArgumentParser
import Logging
import TabulaExampleBackend
import TabulaHTTP
import TabulaPlatform
import TabulaService

/// `tabula example-backend`: the app backend the bundled `sign-in` screen calls, for the
/// walkthrough and the tests (see ``ExampleBackend``).
struct ExampleBackendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "example-backend",
        abstract: "Serve the example app backend that the bundled sign-in screen's call action asks.",
        discussion: """
            Start it, then start Tabula with --actions-url http://HOST:PORT and the same \
            secret. It checks every call's Tabula-Signature, knows one account \
            (ann@example.com, password "correct horse"), answers a wrong password with an \
            error on the password row, and a right one by signing in and moving to the \
            settings screen. Stop it with Ctrl-C.
            """
    )

    @Option(parsing: .unconditional, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "The port; 0 picks a free one, which the startup log names.")
    var port = 8081

    @Option(parsing: .unconditional, help: "The secret Tabula signs its calls with (env TABULA_ACTIONS_SECRET): the same as tabula serve's --actions-secret.")
    var secret: String?

    @Flag(help: "Stop when the process that started this one ends (Scripts/serve starts it beside tabula serve).")
    var stopWithParent = false

    /// The secret, from the option or the environment. An empty one would make every
    /// signature anyone computes a valid one.
    func resolvedSecret() throws -> String {
        guard let secret = secret ?? EnvironmentSetting.value("TABULA_ACTIONS_SECRET"), !secret.isEmpty else {
            throw ValidationError("give the secret Tabula signs its calls with: --secret, or TABULA_ACTIONS_SECRET")
        }
        return secret
    }

    /// Checked before the run, so that a wrong setting is reported with this command's usage.
    func validate() throws {
        _ = try resolvedSecret()
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, not \(port)") }
    }

    func run() throws {
        let secret = try resolvedSecret()
        // Before the first logger starts the log's writer thread: see ServeCommand.run.
        ServiceGroup.blockStopSignals()
        LoggingSystem.bootstrap { label in TabulaLogHandler(label: label, level: .info) }
        defer { BufferedStandardOutput.shared.flush() }
        let logger = Logger(label: "example-backend")
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = UInt16(port)
        configuration.threads = 2
        let server = HTTPServer(configuration: configuration, handler: ExampleBackend(secret: secret), observer: SilentObserver(), logger: logger)
        do {
            try server.start()
        } catch {
            throw CommandFailure(error.description)
        }
        logger.notice("example backend listening on http://\(URLHost.bracketed(host)):\(server.port)")
        BufferedStandardOutput.shared.flush()
        if stopWithParent {
            // Orphaned, a process is adopted by another: then the one that started it ended.
            let parent = getppid()
            _ = WorkerThread.start {
                while getppid() == parent { usleep(200_000) }
                kill(getpid(), SIGTERM)
            }
        }
        _ = ServiceGroup.waitForStopSignal {}
        server.shutdown()
    }
}
