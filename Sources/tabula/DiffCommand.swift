import ArgumentParser
import TabulaCore

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Print the change set between two screens in the wire model.",
        discussion: """
            Reads OLD and NEW (screen JSON as GET /v1/screens/{id} returns it) and prints the \
            change set that turns OLD into NEW: deletions and `from` use OLD's indexes, \
            insertions and `to` use NEW's. Exits 1 when a file cannot be read or is not a \
            valid screen (for example when an id is used twice).
            """
    )

    @Argument(help: "The screen before the change (a JSON file).")
    var old: String

    @Argument(help: "The screen after the change (a JSON file).")
    var new: String

    @Flag(help: "Indent the output for reading.")
    var pretty = false

    func run() throws {
        let oldScreen = try readScreen(old)
        let newScreen = try readScreen(new)
        let changes = diff(old: oldScreen, new: newScreen)
        printJSON(changes.jsonBytes, pretty: pretty)
    }

    private func readScreen(_ path: String) throws -> Screen {
        let bytes = try readFile(path)
        do {
            return try Screen(jsonBytes: bytes)
        } catch {
            throw CommandFailure("\(path): not a valid screen: \(error)")
        }
    }
}
