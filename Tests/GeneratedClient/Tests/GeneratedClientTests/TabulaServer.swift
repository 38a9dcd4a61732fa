import Foundation
import Testing

/// A `tabula serve` of its own for one test: the binary that `TABULA_BINARY` names, on a port
/// it picks (read from its log line "listening on http://127.0.0.1:PORT"), with the memory
/// store, a backend key and the preview page, serving a copy of `Fixtures/screens` (and its
/// string tables) plus this package's `Screens/`, so a test may change a definition and
/// reload it.
final class TabulaServer {
    static let backendKey = "generated-client-backend-key"

    let baseURL: URL
    /// The copy of the screens the server serves.
    let screens: URL
    private let process: Process
    private let directory: URL
    private let log: URL

    init() throws {
        let binary = try #require(
            ProcessInfo.processInfo.environment["TABULA_BINARY"],
            "set TABULA_BINARY to a tabula binary (Scripts/generated-client-check does)"
        )
        let fileManager = FileManager.default
        directory = fileManager.temporaryDirectory.appendingPathComponent("generated-client-\(UUID().uuidString)")
        screens = directory.appendingPathComponent("screens")
        try fileManager.createDirectory(at: screens, withIntermediateDirectories: true)
        let fixtures = Self.repository.appendingPathComponent("Fixtures")
        for source in [fixtures.appendingPathComponent("screens"), Self.package.appendingPathComponent("Screens")] {
            for name in try fileManager.contentsOfDirectory(atPath: source.path) where name.hasSuffix(".json") {
                try fileManager.copyItem(at: source.appendingPathComponent(name), to: screens.appendingPathComponent(name))
            }
        }
        try fileManager.copyItem(at: fixtures.appendingPathComponent("strings"), to: directory.appendingPathComponent("strings"))

        log = directory.appendingPathComponent("log")
        _ = fileManager.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "serve", "--store", "memory", "--port", "0", "--backend-key", Self.backendKey, "--preview",
            "--screens", screens.path, "--log-level", "notice",
        ]
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try output.close()

        var port: String?
        for _ in 0..<200 where port == nil && process.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            port = text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/).map { String($0.1) }
            if port == nil { usleep(50_000) }
        }
        guard let port else {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
            try? fileManager.removeItem(at: directory)
            throw ServerError.didNotStart(text)
        }
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    deinit { stop() }

    /// Makes the server read its definitions again (SIGHUP) and waits until it has.
    func reloadDefinitions() throws {
        let before = try String(contentsOf: log, encoding: .utf8).components(separatedBy: "reloaded the definitions").count
        kill(process.processIdentifier, SIGHUP)
        for _ in 0..<100 {
            if try String(contentsOf: log, encoding: .utf8).components(separatedBy: "reloaded the definitions").count > before { return }
            usleep(50_000)
        }
        throw ServerError.didNotReload(try String(contentsOf: log, encoding: .utf8))
    }

    /// Stops the server gracefully (SIGTERM), which ends its open streams, and waits for it.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    enum ServerError: Error {
        case didNotStart(String)
        case didNotReload(String)
    }

    /// This package's folder, and the repository's, from this file's place in it.
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let repository = package.deletingLastPathComponent().deletingLastPathComponent()
}
