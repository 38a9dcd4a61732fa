import Foundation
import TabulaCore
import TabulaTestSupport
import Testing

/// Every curl command in the README and in `docs/*.md` runs against a live server, so the
/// documentation cannot drift.
@Suite(.serialized) struct ReadmeTests {
    let readmeFile: MarkdownFile
    var readme: String { readmeFile.text }

    init() throws {
        readmeFile = try MarkdownFile("README.md")
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
    var inlineCommands: [String] { readmeFile.inlineCurlCommands }

    func run(_ script: String, port: UInt16, environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-euo", "pipefail", "-c", script]
        process.currentDirectoryURL = repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(["TABULA": "http://127.0.0.1:\(port)"]) { $1 }
            .merging(environment) { $1 }
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

    /// The walkthrough runs against a server this script starts, so that the deployment's
    /// restart (a commented `Scripts/serve ARGUMENTS` line, which the reader runs after
    /// stopping the server) can be made here: on the same port and data directory.
    /// The script prints the session and its screen at the end, then stops the server.
    static let serverFunctions = #"""
        start_tabula() {
          for _ in $(seq 100); do
            "$TABULA_BINARY" serve --port "$TABULA_PORT" --data-dir "$TABULA_DATA" --log-level warning "$@" >>"$TABULA_LOG" 2>&1 &
            TABULA_PID=$!
            for _ in $(seq 100); do
              if curl -s -o /dev/null "$TABULA/healthz"; then return 0; fi
              kill -0 "$TABULA_PID" 2>/dev/null || break
              sleep 0.05
            done
            wait "$TABULA_PID" || true
            sleep 0.1
          done
          echo "tabula serve did not start: $(cat "$TABULA_LOG")" >&2
          return 1
        }
        restart_tabula() {
          kill -TERM "$TABULA_PID"
          wait "$TABULA_PID" || true
          start_tabula "$@"
        }
        # The README's `curl -N` stream, run in the background as its second terminal would:
        # the next command starts once the stream has sent its first event.
        stream_in_background() {
          "$@" >"$TABULA_STREAM_OUT" 2>&1 &
          for _ in $(seq 200); do
            if grep -q '^event: screen' "$TABULA_STREAM_OUT"; then return 0; fi
            sleep 0.05
          done
          echo "the stream sent no screen: $(cat "$TABULA_STREAM_OUT")" >&2
          return 1
        }
        # As Scripts/serve does: the example backend beside Tabula, for the sign-in screen.
        start_example_backend() {
          "$TABULA_BINARY" example-backend --port 0 >"$TABULA_LOG.backend" 2>&1 &
          TABULA_BACKEND_PID=$!
          for _ in $(seq 200); do
            port=$(sed -nE 's|.*listening on http://127\.0\.0\.1:([0-9]+).*|\1|p' "$TABULA_LOG.backend")
            if [ -n "$port" ]; then export TABULA_ACTIONS_URL="http://127.0.0.1:$port"; return 0; fi
            sleep 0.05
          done
          echo "the example backend did not start: $(cat "$TABULA_LOG.backend")" >&2
          return 1
        }
        trap 'kill -TERM "$TABULA_PID" "$TABULA_BACKEND_PID" 2>/dev/null; wait' EXIT
        start_example_backend
        start_tabula

        """#

    /// The walkthrough's commented restart, `#   Scripts/serve ARGUMENTS`.
    static let restartLine = "\n#   Scripts/serve "
    /// The walkthrough's stream, which runs until stopped.
    static let streamLine = "\ncurl -sS -N "

    @Test func walkthroughRunsAgainstALiveServer() throws {
        let scratch = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let port = try ServerProcess.freePort()
        let walkthrough = shellBlocks.filter { $0.contains("curl -") }.joined(separator: "\n")
        let restarts = walkthrough.components(separatedBy: Self.restartLine).count - 1
        #expect(restarts == 1, "the walkthrough's deployment restarts the server once")
        #expect(walkthrough.components(separatedBy: Self.streamLine).count - 1 == 1, "the walkthrough follows one stream")
        let streamOutput = scratch.appendingPathComponent("stream")
        let script =
            Self.serverFunctions
            + walkthrough.replacingOccurrences(of: Self.restartLine, with: "\nrestart_tabula ")
            .replacingOccurrences(of: Self.streamLine, with: "\nstream_in_background curl -sS -N ")
            + "\nprintf '\\nSESSION=%s\\n' \"$SESSION\""
            + "\nprintf '\\nSCREEN=%s\\n' \"$(curl -sS -H \"X-Session: $SESSION\" \"$TABULA/v1/screens/settings\")\"\n"
            + "\nprintf '\\nFRENCH_SCREEN=%s\\n' \"$(curl -sS -H \"X-Session: $FRENCH\" \"$TABULA/v1/screens/settings\")\"\n"
        let (status, output) = try run(
            script, port: port,
            environment: [
                "TABULA_PORT": String(port), "TABULA_DATA": scratch.appendingPathComponent("data").path,
                "TABULA_BINARY": tabulaExecutable.path, "TABULA_LOG": scratch.appendingPathComponent("log").path,
                "FIXTURES": scratch.appendingPathComponent("fixtures").path, "TABULA_BACKEND_KEY": "walkthrough-backend-key",
                "TABULA_STREAM_OUT": streamOutput.path, "TABULA_ACTIONS_SECRET": "walkthrough-actions-secret",
            ])
        #expect(status == 0, "\(output)")
        // The stream showed the screen, then the switch's change set, as the README says.
        let streamed = try String(contentsOf: streamOutput, encoding: .utf8)
        let blocks = streamed.components(separatedBy: "\n\n").map { EventStreamClient.parse(Array($0.utf8)) }
        let events = blocks.compactMap(\.event)
        #expect(events.prefix(2) == ["screen", "changes"], "\(streamed)")
        let change = try #require(blocks.first { $0.event == "changes" }?.data)
        #expect(change.contains(#""fromRevision":1,"screen":"settings","toRevision":2"#) && change.contains(#""isOn":true"#), "\(change)")
        #expect(change.contains(#""from":{"row":4,"section":0}"#) && readme.contains(#""from":{"row":4,"section":0}"#), "\(change)")
        #expect(output.split(separator: "\n").contains { $0.hasPrefix("SESSION=") && $0.count > 30 })
        let screenLine = try #require(output.split(separator: "\n").last { $0.hasPrefix("SCREEN=") })
        let screen = try Screen(jsonBytes: Array(screenLine.dropFirst(7).utf8))
        #expect(screen.revision == 4)
        #expect(screen.path(ofRow: "network-home") == nil)
        #expect(screen.sections[1].rows[1].content == .checkmark(title: "Dark", isChecked: true))
        #expect(output.contains(#""fromRevision":0,"screen":"settings","toRevision":4"#))
        #expect(output.contains(#""status":422"#))
        // The French session: plural, then singular, then Polish in one change set.
        #expect(output.contains(#""text":"2 réseaux connus""#) && output.contains(#""text":"1 réseau connu""#))
        #expect(output.contains(#"{"client":{"locale":"pl"},"fromRevision":1,"toRevision":2}"#))
        let frenchLine = try #require(output.split(separator: "\n").last { $0.hasPrefix("FRENCH_SCREEN=") })
        let polish = try Screen(jsonBytes: Array(frenchLine.dropFirst(14).utf8))
        #expect(polish.title == "Ustawienia" && polish.sections.first?.footer == .textFooter(text: "1 znana sieć"))
        // The form: the edit's error, then a submit that passes, its password nowhere.
        #expect(output.contains(#""error":"Enter a valid e-mail address""#) && output.contains(#""text":"ann""#))
        #expect(output.contains(#""error":"Wrong password""#) && output.contains(#""submit":{"form":"signin","valid":false},"toRevision":2"#))
        #expect(output.contains(#""effects":[{"screen":"settings","type":"navigate"}]"#))
        #expect(output.contains(#""submit":{"form":"signin","valid":true},"toRevision":3"#))
        #expect(!output.contains(#""correct horse""#) && !output.contains(#""wrong horse""#))
        // The backend's part: the patch, and the app's catch-up inserting the Lab network.
        #expect(output.contains(#"{"fromRevision":0,"toRevision":1}"#))
        #expect(output.contains(#""id":"network-lab""#))
        // On the deployed screens, as the README prints them: below Airplane Mode, Wi-Fi and Office.
        #expect(output.contains(#""row":3,"section":0}],"moved""#) && readme.contains(#"…"id":"network-lab",…},"row":3,"section":0}]"#))
        #expect(output.contains(#""cause":"created","changedKeys":["airplane","appearance","#))
        // After the deployment: the catch-up inserts Airplane Mode at the top of the copy.
        // curl prints no newline after a body: the answer is the one from `{"changes":` to
        // the end of `"toRevision":4}` after `"fromRevision":4`.
        let line = try #require(output.split(separator: "\n").last { $0.contains(#""fromRevision":4"#) })
        let from = try #require(line.range(of: #""fromRevision":4,"#))
        let start = try #require(line[..<from.lowerBound].range(of: #"{"changes":"#, options: .backwards)).lowerBound
        let end = try #require(line[from.upperBound...].range(of: #""toRevision":4}"#)).upperBound
        let catchUp = line[start..<end]
        let changes = try ChangeSet(json: try #require(try JSONParser().parse(Array(catchUp.utf8)).objectValue?["changes"]))
        #expect(changes.rows.inserted.map(\.row.id) == ["airplane"] && changes.rows.inserted.first?.path == RowPath(section: 0, row: 0))
        #expect(changes.rows.moved.isEmpty && changes.rows.deleted.isEmpty)
        #expect(screen.row(at: RowPath(section: 0, row: 0))?.id == "airplane")
    }

    /// Runs each inline command alone against a fresh server, failing on an HTTP error.
    func runInline(_ commands: [String], from page: String) throws {
        let server = try ServerProcess()
        for command in commands {
            let live = command.replacingOccurrences(of: "http://127.0.0.1:8080", with: "http://127.0.0.1:\(server.port)")
            let (status, output) = try run(live + " --fail-with-body", port: server.port)
            #expect(status == 0, "\(page): \(command): \(output)")
        }
    }

    @Test func inlineCommandsRunAgainstALiveServer() throws {
        try runInline(inlineCommands, from: "README.md")
    }

    /// The pages under docs/ show curl commands only as inline spans, which all run.
    @Test func everyCurlCommandInTheDocsIsRun() throws {
        var total = 0
        for page in try MarkdownFile.docsPages() {
            let commands = page.inlineCurlCommands
            #expect(
                page.text.components(separatedBy: "curl -").count - 1 == commands.count,
                "\(page.path): a curl command is not an inline code span, so it is not run")
            total += commands.count
        }
        #expect(total >= 5)
    }

    @Test func docsInlineCommandsRunAgainstALiveServer() throws {
        for page in try MarkdownFile.docsPages() where !page.inlineCurlCommands.isEmpty {
            try runInline(page.inlineCurlCommands, from: page.path)
        }
    }
}
