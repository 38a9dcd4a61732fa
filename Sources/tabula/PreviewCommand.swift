import ArgumentParser

/// `tabula preview [DIR]`: an author's loop in one command.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Serve a directory of screens for an author: the preview page, live reload, sessions in memory.",
        discussion: """
            The same as tabula serve --screens DIR --store memory --watch --preview: open the \
            URL it prints, edit a definition file and save it, and every open preview (and \
            every client's stream) moves to the new screen. A broken file is listed on the \
            page while the last good screens keep serving. Stop it with Ctrl-C.
            """
    )

    @Argument(help: "The directory of screen definitions (env TABULA_SCREENS, default \(ServeCommand.Defaults.screens)).")
    var directory: String?

    @Option(parsing: .unconditional, help: "The address to listen on (env TABULA_HOST, default 127.0.0.1).")
    var host: String?

    @Option(parsing: .unconditional, help: "The port; 0 picks a free one, which the startup log names (env TABULA_PORT, default 8080).")
    var port: Int?

    @Option(parsing: .unconditional, help: "trace, debug, info, notice, warning, error or critical (env TABULA_LOG_LEVEL, default info).")
    var logLevel: String?

    @OptionGroup var urlSchemes: URLSchemeOptions

    /// `serve`'s options, each written `--name=value`, so that a value starting with `-` is
    /// not read as another option. What the command line leaves out, `serve` reads from the
    /// environment as it always does; only the address has a default of its own, the
    /// loopback, as an author's tool should.
    func serveArguments() throws -> [String] {
        var arguments = ["--store=memory", "--watch", "--preview"]
        if let directory { arguments.append("--screens=\(directory)") }
        let host = try EnvironmentSetting.resolve(host, "TABULA_HOST", default: "127.0.0.1")
        arguments.append("--host=\(host)")
        if let port { arguments.append("--port=\(port)") }
        if let logLevel { arguments.append("--log-level=\(logLevel)") }
        if let schemes = urlSchemes.openURLSchemes { arguments.append("--open-url-schemes=\(schemes)") }
        return arguments
    }

    /// `serve`'s options, parsed and checked before the run, so that a wrong one is reported
    /// with this command's usage, not `serve`'s.
    func serveCommand() throws -> ServeCommand {
        do {
            return try ServeCommand.parse(try serveArguments())
        } catch {
            throw ValidationError(ServeCommand.message(for: error))
        }
    }

    func validate() throws {
        _ = try serveCommand()
    }

    func run() throws {
        try serveCommand().run()
    }
}
