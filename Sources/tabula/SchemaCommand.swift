import ArgumentParser
import TabulaCore

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of a screen definition file, or of a string table.",
        discussion: """
            The schema (draft 2020-12) describes every member, row kind, action and expression \
            position, so that editors complete and check definitions: name it in a definition's \
            "$schema" member. Fixtures/screen.schema.json is its output. It checks one file's \
            shape; tabula validate checks the rest (expressions, state keys, kinds, ids, \
            references and agreement between files). With --strings, the schema of a string \
            table (strings/LOCALE.json); Fixtures/strings.schema.json is its output.
            """
    )

    @Flag(help: "Print the schema of a string table instead.")
    var strings = false

    func run() {
        print((strings ? StringTableSchema.document : DefinitionSchema.document).prettyText())
    }
}
