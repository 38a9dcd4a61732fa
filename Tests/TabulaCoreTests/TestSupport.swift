import Foundation
import TabulaCore

/// The repository's root, found from this file's location.
let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Reads a file under the repository root.
func readRepositoryFile(_ relativePath: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: repositoryRoot.appendingPathComponent(relativePath)))
}

/// Compares `actual` with the golden file at `relativePath` (its bytes plus a final newline).
/// With `TABULA_UPDATE_GOLDEN=1` the file is rewritten instead and the comparison passes.
func goldenMatches(_ actual: [UInt8], _ relativePath: String) throws -> Bool {
    let url = repositoryRoot.appendingPathComponent(relativePath)
    let expected = actual + [0x0A]
    if ProcessInfo.processInfo.environment["TABULA_UPDATE_GOLDEN"] == "1" {
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(expected).write(to: url)
        return true
    }
    return [UInt8](try Data(contentsOf: url)) == expected
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

func basicRow(_ id: String, _ title: String? = nil) -> Row {
    Row(id: id, content: .basic(title: title ?? id))
}

func section(_ id: String, _ rowIDs: [String], header: String? = nil) -> Section {
    Section(id: id, header: header.map { .titleHeader(title: $0) }, rows: rowIDs.map { basicRow($0) })
}

func screen(_ sections: [Section], title: String = "Test") -> Screen {
    Screen(id: "test", title: title, sections: sections)
}
