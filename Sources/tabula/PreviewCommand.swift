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

    @Argument(help: "The directory of screen definitions.")
    var directory = ServeCommand.Defaults.screens

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one, which the startup log names.")
    var port = 8080

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @OptionGroup var urlSchemes: URLSchemeOptions

    func run() throws {
        let schemes = urlSchemes.openURLSchemes.map { ["--open-url-schemes", $0] } ?? []
        let serve = try ServeCommand.parse(
            [
                "--screens", directory, "--store", "memory", "--watch", "--preview", "--host", host, "--port", String(port), "--log-level",
                logLevel,
            ] + schemes)
        try serve.run()
    }
}
