import Foundation

/// The repository's root, found from this file's location.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `tabula` binary built next to the running test bundle.
public let tabulaExecutable: URL = {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("tabula").path), directory.path != "/" {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("tabula")
}()

/// A fresh temporary directory.
public func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tabula-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A `tabula serve` process on a free loopback port, its output captured to a file.
public final class ServerProcess: @unchecked Sendable {
    public let process = Process()
    public let logFile: URL
    /// The SQLite data directory, unless the arguments name one.
    public let dataDirectory: URL
    public private(set) var port: UInt16 = 0

    /// Starts `tabula serve --port 0 ARGUMENTS` and waits until it listens. When ARGUMENTS
    /// set a log level that hides the startup line, a free port is chosen here instead and
    /// the server is awaited by connecting; `port` gives the port instead (a restart on the
    /// port of a server killed before).
    public init(arguments: [String] = [], environment: [String: String] = [:], startTimeout: Double = 20, port fixedPort: UInt16? = nil) throws {
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("tabula-serve-\(UUID().uuidString).log")
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tabula-data-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: logFile)
        process.executableURL = tabulaExecutable
        let quiet =
            arguments.contains("--log-level")
            && !["trace", "debug", "info", "notice"].contains(arguments[(arguments.firstIndex(of: "--log-level") ?? 0) + 1])
        let chosenPort: UInt16 = try fixedPort ?? (quiet ? Self.freePort() : 0)
        let level = arguments.contains("--log-level") ? [] : ["--log-level", "info"]
        let data = arguments.contains("--data-dir") ? [] : ["--data-dir", dataDirectory.path]
        process.arguments = ["serve", "--port", String(chosenPort)] + level + data + arguments
        process.currentDirectoryURL = repositoryRoot
        var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TABULA_") }
        for (key, value) in environment { variables[key] = value }
        process.environment = variables
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = Date().addingTimeInterval(startTimeout)
        while Date() < deadline {
            if chosenPort != 0, (try? RawHTTPConnection(port: chosenPort, timeout: 1)) != nil {
                port = chosenPort
                return
            }
            if let found = Self.port(in: log) {
                port = found
                return
            }
            if !process.isRunning {
                throw ServerProcessError("tabula serve exited with \(process.terminationStatus) before listening:\n\(log)")
            }
            usleep(20_000)
        }
        process.terminate()
        throw ServerProcessError("tabula serve did not report listening within \(startTimeout) seconds:\n\(log)")
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: logFile)
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    public var log: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// Waits until the log holds every one of `texts`, for at most `seconds`; whether it does.
    @discardableResult
    public func waitForLog(containing texts: [String], seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let text = log
            if texts.allSatisfy(text.contains) { return true }
            if Date() >= deadline { return false }
            usleep(20_000)
        }
    }

    /// A port that was free a moment ago (bound to 0, then released).
    public static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw ServerProcessError("no free port") }
        return UInt16(bigEndian: address.sin_port)
    }

    static func port(in log: String) -> UInt16? {
        guard let range = log.range(of: "listening on http://") else { return nil }
        // The authority ends at the first space; the port follows its last colon
        // ("127.0.0.1:8080", "[::1]:8080").
        let authority = log[range.upperBound...].prefix { $0 != " " }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return UInt16(authority[authority.index(after: colon)...].prefix { $0.isNumber })
    }

    /// Sends a signal to the process.
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit; its status, or `nil` if it still runs after `seconds`.
    public func waitForExit(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }
}

public struct ServerProcessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
