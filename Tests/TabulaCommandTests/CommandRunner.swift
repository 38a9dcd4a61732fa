import Foundation

/// The output of one run of the `tabula` executable.
struct CommandResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// The repository's root, found from this file's location.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `tabula` binary built next to the test bundle.
let tabulaExecutable: URL = {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("tabula").path),
        directory.path != "/"
    {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("tabula")
}()

/// Runs `tabula` with arguments and waits for it.
/// `environment` adds to (or replaces in) the test's own environment; `prefix` runs the
/// binary through another command, such as `setpriv` with its arguments.
func runTabula(
    _ arguments: [String], currentDirectory: URL = repositoryRoot, environment: [String: String] = [:], prefix: [String] = []
) throws -> CommandResult {
    let process = Process()
    if let command = prefix.first {
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = Array(prefix.dropFirst()) + [tabulaExecutable.path] + arguments
    } else {
        process.executableURL = tabulaExecutable
        process.arguments = arguments
    }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.currentDirectoryURL = currentDirectory
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus,
        standardOutput: String(decoding: outputData, as: UTF8.self),
        standardError: String(decoding: errorData, as: UTF8.self))
}

/// A fresh temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tabula-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
