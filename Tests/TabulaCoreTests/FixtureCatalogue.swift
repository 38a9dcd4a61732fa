import Foundation
import TabulaCore
import Testing

/// The bundled catalogue under `Fixtures/screens`, loaded once for the tests.
let fixtureLoad: Result<Catalogue, any Error> = Result {
    let directory = repositoryRoot.appendingPathComponent("Fixtures/screens")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
    return try Catalogue.load(try names.map { DefinitionFile(name: $0, bytes: try readRepositoryFile("Fixtures/screens/\($0)")) })
}

var fixtureCatalogue: Catalogue {
    get throws { try fixtureLoad.get() }
}

func fixtureScreen(_ id: String) throws -> ScreenDefinition {
    try #require(try fixtureCatalogue.screen(id: id))
}
