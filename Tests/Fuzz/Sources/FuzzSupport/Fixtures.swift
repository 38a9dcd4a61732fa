import TabulaCore
import TabulaSamples

/// The bundled definitions under `Fixtures/screens`, found from this file's place in the
/// repository so the fuzzers run from any directory.
public enum Fixtures {
    /// `<repository>/Fixtures/screens`: this file is `Tests/Fuzz/Sources/FuzzSupport/Fixtures.swift`.
    public static let directory: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(min(5, components.count))
        return components.joined(separator: "/") + "/Fixtures/screens"
    }()

    /// The bundled catalogue; the process stops when it cannot be loaded, since every
    /// input would then test nothing.
    public static let catalogue: Catalogue = {
        let files = definitionFiles()
        guard !files.isEmpty else { fatalError("no definitions found in \(directory)") }
        do {
            return try Catalogue.load(files, strings: strings)
        } catch {
            fatalError("the fixtures in \(directory) do not load: \(error)")
        }
    }()

    /// The bundled string tables (`Fixtures/strings`), which definitions name with `@key`.
    public static let strings = FixtureFiles.strings(besideScreens: directory)

    static func definitionFiles() -> [DefinitionFile] {
        FixtureFiles.definitionFiles(directory: directory) ?? []
    }
}
