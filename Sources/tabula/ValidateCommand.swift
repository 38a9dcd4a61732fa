import ArgumentParser
import TabulaCore

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check every screen definition in a directory.",
        discussion: """
            Loads every *.json file in DIR as one catalogue and prints each problem on its own \
            line as FILE:LINE:COLUMN: JSON-PATH[: column N]: what to fix (column N is the \
            column within an expression). Exits 1 if there is any problem.
            """
    )

    @Argument(help: "The directory of screen definitions.")
    var directory: String = "Fixtures/screens"

    func run() throws {
        let files = try readDefinitionFiles(in: directory)
        do {
            let catalogue = try Catalogue.load(files)
            print("\(catalogue.screens.count) screens valid: \(catalogue.screens.map(\.id).joined(separator: ", "))")
        } catch {
            printToStandardError(error.description)
            printToStandardError("\(error.problems.count) problem\(error.problems.count == 1 ? "" : "s") in \(directory)")
            throw ExitCode(1)
        }
    }
}
