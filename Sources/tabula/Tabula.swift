import ArgumentParser

@main
struct Tabula: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tabula",
        abstract: "Serves table screens as JSON and answers events with change sets.",
        subcommands: [
            ServeCommand.self, PreviewCommand.self, ValidateCommand.self, SchemaCommand.self, RenderCommand.self, DiffCommand.self,
            HealthcheckCommand.self, ExampleBackendCommand.self, WatchCommand.self,
        ]
    )
}
