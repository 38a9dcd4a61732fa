import Foundation
import TabulaSamples
import Testing

@Suite struct ValidateAndRenderCommandTests {
    @Test func validatesTheBundledFixtures() throws {
        let result = try runTabula(["validate", "Fixtures/screens"])
        #expect(result.status == 0)
        #expect(
            result.standardOutput
                == "12 screens valid: about-details, inbox, join-network, message, people, people-details, protocol-settings, settings, sign-in, "
                + "static-text, table-director, users\n")
    }

    /// From inside the screens directory: `.`'s string tables are in `../strings`, not in
    /// `./strings`, which reported every string key missing.
    @Test func validatesTheCurrentDirectory() throws {
        let screens = repositoryRoot.appendingPathComponent("Fixtures/screens")
        for directory in [".", "./", "../screens/."] {
            let result = try runTabula(["validate", directory], currentDirectory: screens)
            #expect(result.status == 0 && result.standardOutput.hasPrefix("12 screens valid"), "\(directory): \(result.standardError)")
        }
        let rendered = try runTabula(["render", "settings", "--screens", "."], currentDirectory: screens)
        #expect(rendered.status == 0, "\(rendered.standardError)")
    }

    /// `validate` and `render` read TABULA_SCREENS, TABULA_STRINGS and TABULA_DEFAULT_LOCALE
    /// as `serve` does: in a container, a bare `tabula validate` checks what `serve` loads.
    @Test func validateAndRenderReadTheEnvironmentAsServeDoes() throws {
        let scratch = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let screens = repositoryRoot.appendingPathComponent("Fixtures/screens").path
        let environment = ["TABULA_SCREENS": screens]
        let validated = try runTabula(["validate"], currentDirectory: scratch, environment: environment)
        #expect(validated.status == 0 && validated.standardOutput.hasPrefix("12 screens valid"), "\(validated.standardError)")
        let rendered = try runTabula(["render", "settings"], currentDirectory: scratch, environment: environment)
        #expect(rendered.status == 0, "\(rendered.standardError)")
        let noStrings = try runTabula(["validate"], currentDirectory: scratch, environment: environment.merging(["TABULA_STRINGS": scratch.path]) { $1 })
        #expect(noStrings.status == 1, "TABULA_STRINGS names a folder without the tables: \(noStrings.standardOutput)")
        let badLocale = try runTabula(["validate", "--default-locale", "not a tag"], currentDirectory: scratch, environment: environment)
        #expect(badLocale.status == 64 && badLocale.standardError.contains("is not a BCP 47 language tag"), "\(badLocale.standardError)")
        let german = try runTabula(["validate"], currentDirectory: scratch, environment: environment.merging(["TABULA_DEFAULT_LOCALE": "de"]) { $1 })
        #expect(german.status == 1 && german.standardError.contains("the default locale de has no table"), "\(german.standardError)")
    }

    @Test func listsEveryProblemWithFilePathAndColumn() throws {
        let directory = "\(InvalidDefinitionCase.directory)/every-problem-listed"
        let invalid = try #require(
            InvalidDefinitionCase(root: repositoryRoot.appendingPathComponent(InvalidDefinitionCase.directory).path, name: "every-problem-listed"))
        let result = try runTabula(["validate", directory])
        #expect(result.status == 1)
        #expect(result.standardError == (invalid.problems.map(\.line) + ["\(invalid.problems.count) problems in \(directory)", ""]).joined(separator: "\n"))
    }

    /// 12,000 terms of `||` crashed `tabula validate` in a debug build, 100,000 in a release
    /// one: the chain is now a problem with its place, whatever its length.
    @Test func aLongOperatorChainIsAProblemNotACrash() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, link) in [("or", " || "), ("and", " && "), ("equal", " == ")] {
            let chain = Array(repeating: "on", count: 100_000).joined(separator: link)
            let definition =
                #"{"id": "\#(name)", "title": "T", "state": {"on": true}, "sections": [{"id": "s", "rows": [{"id": "r", "kind": "basic", "title": "T", "visibleWhen": "\#(chain)"}]}]}"#
            try Data(definition.utf8).write(to: directory.appendingPathComponent("\(name).json"))
        }
        let result = try runTabula(["validate", directory.path])
        #expect(result.status == 1, "\(result.standardError.prefix(500))")
        #expect(result.standardError.components(separatedBy: "nests deeper than 64 levels").count == 4, "\(result.standardError.prefix(800))")
        #expect(result.standardError.contains("equal.json:1:") && result.standardError.contains("$.sections[0].rows[0].visibleWhen: column"))
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
        #expect(unknown.standardError.contains("no screen \"nope\" in Fixtures/screens; known screens: about-details, inbox, join-network, message, people"))
    }

    /// An item screen shows its list's first item, as its golden file does, or `--item`'s.
    /// A state file is read up to a bound: `/dev/zero` used to grow the process until the
    /// allocator or the OOM killer stopped it.
    @Test(.timeLimit(.minutes(1))) func anEndlessStateFileIsRefused() throws {
        let result = try runTabula(["render", "settings", "--state", "/dev/zero"])
        #expect(result.status == 1 && result.standardError.contains("/dev/zero: holds more than 64 MiB"), "\(result.standardError)")
    }

    @Test func rendersAnItemScreenWithItsItem() throws {
        let first = try runTabula(["render", "people-details"])
        #expect(first.status == 0, "\(first.standardError)")
        let golden = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Fixtures/expected/screens/people-details.json"), encoding: .utf8)
        #expect(first.standardOutput == golden)
        let named = try runTabula(["render", "people-details", "--item", "alex-great"])
        #expect(named.status == 0 && named.standardOutput.contains(#""item":"alex-great""#), "\(named.standardError)")
        let unknown = try runTabula(["render", "people-details", "--item", "nobody"])
        #expect(unknown.status == 1 && unknown.standardError.contains(#""people" holds no item "nobody" at this state; its items: john-doe"#))
        let notAnItemScreen = try runTabula(["render", "settings", "--item", "x"])
        #expect(notAnItemScreen.status == 1 && notAnItemScreen.standardError.contains(#""settings" is not one"#))
    }

    @Test func rendersInALocale() throws {
        let french = try runTabula(["render", "settings", "--locale", "fr"])
        #expect(french.status == 0)
        #expect(french.standardOutput.contains(#""text":"2 réseaux connus""#) && french.standardOutput.contains(#""title":"Réglages""#))
        let polish = try runTabula(["render", "users", "--locale", "pl-PL"])
        #expect(polish.standardOutput.contains(#""text":"4 użytkowników; przesuń wiersz, aby go usunąć""#), "\(polish.standardOutput)")
        let bad = try runTabula(["render", "settings", "--locale", "français"])
        #expect(bad.status == 1 && bad.standardError.contains("not a BCP 47 language tag"))
    }

    /// A message a locale lacks is a warning: printed, counted, and the catalogue is valid.
    @Test func validatePrintsWarningsAndSucceeds() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let screens = directory.appendingPathComponent("screens")
        let strings = directory.appendingPathComponent("strings")
        for folder in [screens, strings] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try Data(#"{"id": "a", "title": "{{@a.title}}", "sections": []}"#.utf8).write(to: screens.appendingPathComponent("a.json"))
        try Data(#"{"a.title": "Title"}"#.utf8).write(to: strings.appendingPathComponent("en.json"))
        try Data(#"{"a.other": "Autre"}"#.utf8).write(to: strings.appendingPathComponent("fr.json"))
        let result = try runTabula(["validate", screens.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "1 screens valid (1 warning): a\n")
        #expect(
            result.standardError
                == "fr.json:1:1: $: warning: no message \"a.title\", which a.json names at $.title; clients in fr get the en text\n")
        // Another default locale, whose table lacks the message: an error.
        let french = try runTabula(["validate", screens.path, "--default-locale", "fr"])
        #expect(french.status == 1)
        #expect(french.standardError.contains("no message \"a.title\" in fr.json, the default locale's table"), "\(french.standardError)")
    }
}
