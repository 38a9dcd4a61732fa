import ArgumentParser
import TabulaClient
import TabulaModel
import TabulaPlatform
import TabulaService

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow a screen of a running service and print it after every update.",
        discussion: """
            Creates a session (printing "session: TOKEN" on standard error) unless --session \
            gives one, once the screen is known to exist, prints the screen as a text table and redraws it after every update; \
            with --json, prints one line per update instead: {"definition", "revision", \
            "screen"}, the screen after the update in the wire model. On a terminal, a status \
            line above the table holds the session and the connection; elsewhere each change \
            of connection is a line on standard error. It follows the screen \
            through disconnections, restarts of the service and deployments until SIGINT or \
            SIGTERM (exit 0), or until the session is gone: deleted, expired or unknown (exit 3, \
            with the reason on standard error). A screen the service refuses as asked, such as \
            --item for a screen that is not an item screen, or a screen or item it does not \
            have, ends it with 1; one removed while followed, with 3. A service run with \
            --api-key needs the key (--api-key or TABULA_API_KEY); without it, or with a wrong \
            one, the watch ends with 1.
            """
    )

    @Argument(help: "The id of the screen to follow.")
    var screen: String

    @Option(parsing: .unconditional, help: "The service's base URL, such as http://127.0.0.1:8080.")
    var url: String

    @Option(parsing: .unconditional, help: "A session token to follow (default: a new session).")
    var session: String?

    @Option(parsing: .unconditional, help: "The item an item screen shows.")
    var item: String?

    @Option(
        parsing: .unconditional,
        help:
            "The client's language, a BCP 47 tag such as fr or pl. With --session, it replaces that session's client context, which then lists no kinds: the service sends the session every kind as it is."
    )
    var locale: String?

    @Option(
        name: .customLong("api-key"), parsing: .unconditional,
        help:
            "The service's --api-key, sent as Authorization: Bearer (env TABULA_API_KEY, which keeps it out of the process list; default: none)"
    )
    var apiKey: String?

    @Flag(help: "Print one JSON line per update instead of a table.")
    var json = false

    @Option(parsing: .unconditional, help: "The service's --stream-heartbeat: a stream silent for twice as long is taken as dead.")
    var heartbeat: String = "15s"

    @Option(
        name: .customLong("ca-file"), parsing: .unconditional,
        help:
            "A PEM file of the certificate authorities an https service's certificate must come from, instead of the system's: for a service whose certificate a private CA signed."
    )
    var caFile: String?

    /// Options out of their ranges are usage errors (exit 64), as `tabula serve`'s are.
    func validate() throws {
        guard BaseURL.isUsable(url) else {
            throw ValidationError("--url \(url) is not an http:// or https:// URL without a query, such as http://127.0.0.1:8080")
        }
        guard heartbeatSeconds != nil else {
            throw ValidationError("--heartbeat \(heartbeat) is not a duration such as 15s or 1m, at most 100 years")
        }
        if let caFile { try CertificateAuthorityFile.check(caFile, option: "--ca-file", url: url, urlOption: "--url", peer: "service") }
        // A key `tabula serve --api-key` would refuse cannot be a service's.
        if let key = resolvedAPIKey {
            do throws(APIKey.Unusable) {
                _ = try APIKey(validating: key)
            } catch {
                throw ValidationError("the API key (--api-key or TABULA_API_KEY) cannot be a service's: \(error)")
            }
        }
    }

    /// The key to send: `--api-key`, else `TABULA_API_KEY`.
    private var resolvedAPIKey: String? {
        apiKey ?? EnvironmentSetting.value("TABULA_API_KEY")
    }

    /// `--heartbeat` in seconds; `nil` when it is not a duration above 0.
    private var heartbeatSeconds: Int? {
        DurationText.seconds(heartbeat).flatMap { $0 > 0 ? $0 : nil }
    }

    func run() throws {
        guard let heartbeatSeconds else { throw CommandFailure("--heartbeat \(heartbeat) is not a duration such as 15s or 1m") }
        let configuration = {
            var configuration = TabulaSession.Configuration()
            configuration.heartbeat = .seconds(heartbeatSeconds)
            return configuration
        }()
        let transport: CurlTransport
        do {
            transport = try CurlTransport(certificateAuthorities: caFile)
        } catch {
            throw CommandFailure("\(error)")
        }
        // What was printed is flushed after every update, so a signal may end the process at
        // once. A parent that blocked the signals (as `tabula serve` does, to wait for them)
        // passes its mask on: unblock them.
        var stopping = sigset_t()
        sigemptyset(&stopping)
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in _exit(0) }
            sigaddset(&stopping, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &stopping, nil)
        let outcome = waitForCompletion { (done: @escaping @Sendable (Result<Int32, CommandFailure>) -> Void) in
            let watch = Watch(screen: screen, url: url, session: session, item: item, locale: locale, apiKey: resolvedAPIKey, json: json)
            Task { done(await watch.run(configuration, transport)) }
        }
        switch outcome {
        case .success(let status): throw ExitCode(status)
        case .failure(let failure): throw failure
        case nil: throw CommandFailure("the watch stopped without a result")
        }
    }

}

/// The watch itself, with the command's options.
private struct Watch: Sendable {
    let screen: String
    let url: String
    let session: String?
    let item: String?
    let locale: String?
    let apiKey: String?
    let json: Bool

    /// Follows the screen until its session is gone: the exit status, 3, or why it could not start.
    func run(_ configuration: TabulaSession.Configuration, _ transport: CurlTransport) async -> Result<Int32, CommandFailure> {
        let tabula: TabulaSession
        do {
            if let session {
                tabula = TabulaSession(baseURL: url, token: session, apiKey: apiKey, configuration: configuration, transport: transport)
                // Waiting for the service, as after a disconnection.
                if let locale { try await tabula.replaceContextOnceReachable(TabulaSession.Context(locale: locale)) }
            } else {
                if let failure = await refusalOfTheScreen(configuration, transport) { return .failure(failure) }
                tabula = try await TabulaSession.create(
                    baseURL: url, context: TabulaSession.Context(locale: locale), apiKey: apiKey, configuration: configuration,
                    transport: transport)
                printToStandardError("session: \(tabula.token)")
            }
        } catch ClientError.problem(let problem) where problem.refusesTheAPIKey {
            // The key, not the session: a usage error.
            let refusal = apiKey == nil ? "the service requires an API key: give it with --api-key or TABULA_API_KEY" : "the service refused the API key"
            return .failure(CommandFailure("\(refusal) (\(problem.detail))"))
        } catch ClientError.problem(let problem) where problem.status == 401 {
            printToStandardError("tabula watch: the session ended: \(problem.detail)")
            return .success(3)
        } catch {
            return .failure(CommandFailure("\(error)"))
        }
        let handle = tabula.screen(screen, item: item)
        let display = WatchDisplay(json: json, session: tabula.token)
        let connection = Task {
            for await state in await handle.connectionChanges() { await display.connectionChanged(state) }
        }
        defer { connection.cancel() }
        await handle.start()
        var shown = false
        for await update in handle.updates {
            switch update {
            case .changes(_, let screen), .screen(let screen):
                shown = true
                await display.show(screen)
            case .answered, .refused:
                break
            case .ended(let reason):
                if let failure = usageFailure(reason, shown: shown) { return .failure(failure) }
                printToStandardError("tabula watch: \(reason)")
                return .success(3)
            }
        }
        return .success(3)
    }

    /// The usage error an end means, or `nil` when the session is gone. What the command was
    /// asked for cannot be shown; a screen or item named wrong from the start is one too,
    /// while one removed after it was shown is gone.
    private func usageFailure(_ reason: EndReason, shown: Bool) -> CommandFailure? {
        switch reason {
        case .invalidRequest(let detail):
            CommandFailure(detail)
        case .screenRemoved(let detail) where !shown:
            CommandFailure("no screen \"\(screen)\": \(detail)")
        case .itemRemoved where !shown && item == nil:
            CommandFailure("\"\(screen)\" is an item screen: name the item it shows with --item ID")
        case .itemRemoved(let detail) where !shown:
            CommandFailure("no item \"\(item ?? "")\" on the screen \"\(screen)\": \(detail)")
        default:
            nil
        }
    }

    /// Before a new session is made, the screen at the defaults, without one: a screen or
    /// item named wrong is then a usage error that leaves no session behind on the service.
    /// Anything else (the service unreachable, a refused key) is left to the session's start,
    /// which waits for the service and words a refused key for the command line.
    private func refusalOfTheScreen(_ configuration: TabulaSession.Configuration, _ transport: CurlTransport) async -> CommandFailure? {
        do {
            _ = try await TabulaSession.defaultScreen(
                screen, item: item, baseURL: url, apiKey: apiKey, configuration: configuration, transport: transport)
            return nil
        } catch ClientError.problem(let problem) where !problem.refusesTheAPIKey {
            return EndReason(refusingScreenRequest: problem).flatMap { usageFailure($0, shown: false) }
        } catch {
            return nil
        }
    }
}

/// What the watch prints: the screen after every update, and whether the service is
/// reached. On a terminal, the table is redrawn in place under a status line that holds the
/// session (to resume it with --session) and the connection; elsewhere, each table or JSON
/// line follows the last on standard output, and each change of connection is a line on
/// standard error.
private actor WatchDisplay {
    private let json: Bool
    private let session: String
    /// A table redrawn in place, on a terminal.
    private let redraws: Bool
    private var screen: Screen?
    private var connection: ScreenHandle.Connection = .connecting

    init(json: Bool, session: String) {
        self.json = json
        self.session = session
        redraws = !json && isatty(1) == 1
    }

    func show(_ screen: Screen) {
        self.screen = screen
        if json {
            var line = #"{"definition":"# + JSONValue.string(screen.definition ?? "").canonicalText + #","revision":\#(screen.revision),"screen":"#
            line += String(decoding: screen.jsonBytes, as: UTF8.self) + "}"
            print(line)
        } else {
            draw(screen)
        }
        fflush(nil)
    }

    func connectionChanged(_ state: ScreenHandle.Connection) {
        guard state != connection else { return }
        connection = state
        if redraws, let screen {
            draw(screen)
            fflush(nil)
        } else {
            printToStandardError("tabula watch: \(Self.describe(state))")
        }
    }

    private func draw(_ screen: Screen) {
        if redraws {
            print("\u{1B}[H\u{1B}[2J", terminator: "")
            print("session: \(session)    \(Self.describe(connection))\n")
        }
        print(ScreenTable(screen).text)
    }

    private static func describe(_ state: ScreenHandle.Connection) -> String {
        switch state {
        case .connecting: "connecting"
        case .connected: "connected"
        // The reason may quote a server's text: no escape sequence reaches the terminal.
        case .retrying(let reason): "retrying: \(ScreenTable.escapingControlCharacters(reason))"
        }
    }
}
