import Foundation
import Testing

@Suite struct SchemaCommandTests {
    /// Editors read the committed copy; it must be what `tabula schema` prints.
    @Test func theCommittedSchemaIsTheCommandsOutput() throws {
        let result = try runTabula(["schema"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasSuffix("}\n"))
        let committed = try String(contentsOf: repositoryRoot.appendingPathComponent("Fixtures/screen.schema.json"), encoding: .utf8)
        #expect(
            committed == result.standardOutput,
            "Fixtures/screen.schema.json differs from `tabula schema`; regenerate it: swift run tabula schema > Fixtures/screen.schema.json")
    }

    /// Every bundled definition names the committed schema, so that editors check it.
    @Test func everyFixtureNamesTheSchema() throws {
        let directory = repositoryRoot.appendingPathComponent("Fixtures/screens")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(!names.isEmpty)
        for name in names {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            #expect(text.hasPrefix("{\n  \"$schema\": \"../screen.schema.json\",\n"), "\(name) does not name ../screen.schema.json first")
        }
    }
}
