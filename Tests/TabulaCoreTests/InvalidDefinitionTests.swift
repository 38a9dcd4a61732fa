import Foundation
import TabulaCore
import TabulaSamples
import Testing

/// The broken definitions of `Fixtures/invalid/` (``InvalidDefinitionCase``): loading each
/// reports exactly the problems its `expected.txt` lists, in order, with their kinds. Each
/// is also checked against the JSON Schema by `Scripts/schema-check`. After an intended
/// change, `TABULA_UPDATE_GOLDEN=1 swift test` rewrites the problem lines; review the diff.
@Suite struct InvalidDefinitionTests {
    static let root = repositoryRoot.appendingPathComponent(InvalidDefinitionCase.directory).path
    static let names = InvalidDefinitionCase.names(root: root)

    @Test func everyKindOfProblemHasACase() throws {
        var kinds: Set<String> = []
        for name in Self.names { kinds.formUnion(try #require(InvalidDefinitionCase(root: Self.root, name: name)).problems.map(\.kind)) }
        let all: [DefinitionProblem.Kind] = [
            .invalidJSON, .structure, .duplicateScreenID, .duplicateSectionID, .duplicateRowID, .unknownStateKey, .typeMismatch,
            .expressionSyntax, .unknownScreen, .switchOnNonBool, .removeOutsideForEach, .unknownKind, .invalidStateDefault,
            .conflictingDeclaration, .unknownMessage, .urlScheme,
        ]
        #expect(kinds == Set(all.map { "\($0)" }))
    }

    @Test(arguments: names) func reportsTheExpectedProblems(name: String) throws {
        let invalid = try #require(InvalidDefinitionCase(root: Self.root, name: name), "cannot read \(name)")
        #expect(invalid.preamble.contains { $0.hasPrefix("schema: ") }, "\(name)/\(InvalidDefinitionCase.expectationFile) needs a schema: line")
        let problems = definitionProblems(invalid.files, strings: invalid.strings, located: true)
        #expect(!problems.isEmpty, "\(name) loads without a problem")
        let path = "\(InvalidDefinitionCase.directory)/\(name)/\(InvalidDefinitionCase.expectationFile)"
        if ProcessInfo.processInfo.environment["TABULA_UPDATE_GOLDEN"] == "1" {
            try Data(invalid.expectationText(problems: problems).utf8).write(to: repositoryRoot.appendingPathComponent(path))
            return
        }
        #expect(problems.map(InvalidDefinitionCase.line) == invalid.problems.map { "\($0.kind) \($0.line)" }, "\(path)")
    }
}
