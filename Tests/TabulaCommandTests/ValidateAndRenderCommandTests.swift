import Foundation
import Testing

@Suite struct ValidateAndRenderCommandTests {
    @Test func validatesTheBundledFixtures() throws {
        let result = try runTabula(["validate", "Fixtures/screens"])
        #expect(result.status == 0)
        #expect(
            result.standardOutput == "8 screens valid: about-details, people, people-details, protocol-settings, settings, static-text, table-director, users\n"
        )
    }

    @Test func listsEveryProblemWithItsPlaceAndJSONPath() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(
            #"{"id": "a", "title": "{{nope}}", "state": {"on": true}, "sections": [{"id": "s", "rows": [{"id": "r", "kind": "titleSwitch", "title": "x", "isOn": "on &&", "onSwitch": {"set": "on"}}]}]}"#
                .utf8
        )
        .write(to: directory.appendingPathComponent("a.json"))
        try Data("{".utf8).write(to: directory.appendingPathComponent("b.json"))
        let result = try runTabula(["validate", directory.path])
        #expect(result.status == 1)
        #expect(
            result.standardError == """
                a.json:1:25: $.title: column 3: unknown state key 'nope'; declared keys: on
                a.json:1:154: $.sections[0].rows[0].isOn: column 6: the expression ends too early; a value is missing
                b.json:1:2: $: not valid JSON: the document ends too early (truncated JSON?) at line 1, column 2
                3 problems in \(directory.path)

                """)
    }

    @Test func validateOfAnEmptyOrMissingDirectoryFails() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = try runTabula(["validate", directory.path])
        #expect(empty.status == 1)
        #expect(empty.standardError.contains("no screen definitions (*.json files) found"))
        let missing = try runTabula(["validate", directory.appendingPathComponent("nope").path])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("cannot list: No such file or directory"))
    }

    @Test func rendersTheGoldenScreenAtTheDefaultState() throws {
        let result = try runTabula(["render", "settings"])
        #expect(result.status == 0)
        let golden = try String(contentsOf: repositoryRoot.appendingPathComponent("Fixtures/expected/screens/settings.json"), encoding: .utf8)
        #expect(result.standardOutput == golden)
    }

    @Test func rendersAtAGivenState() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stateFile = directory.appendingPathComponent("state.json")
        try Data(#"{"wifi": false, "appearance": "dark"}"#.utf8).write(to: stateFile)
        let result = try runTabula(["render", "settings", "--screens", "Fixtures/screens", "--state", stateFile.path])
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("network-home"))
        #expect(result.standardOutput.contains(#""id":"dark","isChecked":true"#))
    }

    @Test func rejectsABadStateFileOrScreen() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stateFile = directory.appendingPathComponent("state.json")
        try Data(#"{"wifi": "yes"}"#.utf8).write(to: stateFile)
        let badState = try runTabula(["render", "settings", "--state", stateFile.path])
        #expect(badState.status == 1)
        #expect(badState.standardError.contains("state.json: $.wifi: expected a bool, found string"))
        let unknown = try runTabula(["render", "nope"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("no screen \"nope\" in Fixtures/screens; known screens: about-details, people"))
    }
}
