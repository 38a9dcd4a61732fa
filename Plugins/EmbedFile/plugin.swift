import PackagePlugin

/// Embeds the repository's `openapi.json` in TabulaService at build time, as the text of
/// an enum (`EmbeddedOpenAPI.text`), so that the document is a JSON file that tools can
/// format, lint and diff, and the binary still serves it without reading a file.
@main
struct EmbedFile: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "openapi.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedOpenAPI.swift")
        return [
            .buildCommand(
                displayName: "Embedding openapi.json",
                executable: try context.tool(named: "tabula-embed").url,
                arguments: [input.path(), output.path(), "EmbeddedOpenAPI"],
                inputFiles: [input],
                outputFiles: [output])
        ]
    }
}
