import Foundation
import TabulaCore
import TabulaSamples
import Testing

/// The bundled catalogue under `Fixtures/screens`, with the string tables of
/// `Fixtures/strings`, loaded once for the tests.
let fixtureLoad: Result<Catalogue, any Error> = Result {
    try FixtureFiles.catalogue(directory: repositoryRoot.appendingPathComponent("Fixtures/screens").path)
}

/// The bundled string tables, to load fixture files with.
let fixtureStrings = FixtureFiles.strings(besideScreens: repositoryRoot.appendingPathComponent("Fixtures/screens").path)

var fixtureCatalogue: Catalogue {
    get throws { try fixtureLoad.get() }
}

func fixtureScreen(_ id: String) throws -> ScreenDefinition {
    try #require(try fixtureCatalogue.screen(id: id))
}
