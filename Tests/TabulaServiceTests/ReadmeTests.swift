import Foundation
import Testing
import TabulaCore
import TabulaTestSupport

/// Every curl command in the README runs against a live server, so the README cannot drift.
@Suite(.serialized) struct ReadmeTests {
    let readme: String

    init() throws {
        readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The contents of ```sh blocks.
    var shellBlocks: [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```sh") {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append((current ?? []).joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Inline code spans that are curl commands, outside code blocks.
    var inlineCommands: [String] {
        var commands: [String] = []
        var inBlock = false
        for line in readme.split(separator: "\n") {
            if line.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            guard !inBlock else { continue }
            for (index, part) in line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            where index % 2 == 1 && part.hasPrefix("curl -") {
                commands.append(String(part))
            }
        }
        return commands
    }

    func run(_ script: String, port: UInt16) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-euo", "pipefail", "-c", script]
        process.environment = ProcessInfo.processInfo.environment.merging(["TABULA": "http://127.0.0.1:\(port)"]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func everyCurlCommandIsRun() throws {
        let blocks = shellBlocks.filter { $0.contains("curl -") }
        let inBlocks = blocks.map { $0.components(separatedBy: "curl -").count - 1 }.reduce(0, +)
        let total = readme.components(separatedBy: "curl -").count - 1
        #expect(inBlocks + inlineCommands.count == total, "a curl command in the README is neither in a sh block nor an inline span")
        #expect(total >= 9)
    }

    @Test func walkthroughRunsAgainstALiveServer() throws {
        let server = try ServerProcess()
        let script = shellBlocks.filter { $0.contains("curl -") }.joined(separator: "\n") + "\nprintf '\\nSESSION=%s\\n' \"$SESSION\"\n"
        let (status, output) = try run(script, port: server.port)
        #expect(status == 0, "\(output)")
        let session = try #require(output.split(separator: "\n").last { $0.hasPrefix("SESSION=") }.map { String($0.dropFirst(8)) })
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\nX-Session: \(session)\r\n\r\n")
        let screen = try Screen(jsonBytes: try connection.readResponse().body)
        #expect(screen.revision == 4)
        #expect(screen.path(ofRow: "network-home") == nil)
        #expect(screen.sections[1].rows[1].content == .checkmark(title: "Dark", isChecked: true))
        #expect(output.contains(#""fromRevision":0,"screen":"settings","toRevision":4"#))
        #expect(output.contains(#""status":422"#))
    }

    @Test func inlineCommandsRunAgainstALiveServer() throws {
        let server = try ServerProcess()
        for command in inlineCommands {
            let live = command.replacingOccurrences(of: "http://127.0.0.1:8080", with: "http://127.0.0.1:\(server.port)")
            let (status, output) = try run(live + " --fail-with-body", port: server.port)
            #expect(status == 0, "\(command): \(output)")
        }
    }
}
