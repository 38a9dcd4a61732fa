import Foundation
import TabulaCore
import Testing

/// Every fixture rendered at its default state equals `Fixtures/expected/screens/ID.json`;
/// the scripted events of `Fixtures/scripts/ID.json` give `Fixtures/expected/events/ID.json`
/// (steps: `{"select": ROW, "values"?: {ROW: VALUE}}`, `{"delete": ROW}`, `{"switch": ROW,
/// "isOn": BOOL}`, `{"edit": ROW, "value": VALUE}`).
/// Run with `TABULA_UPDATE_GOLDEN=1` to rewrite the expected files after an intended change.
@Suite struct FixtureGoldenTests {
    static var screenIDs: [String] {
        ((try? fixtureCatalogue.screens.map(\.id)) ?? []).sorted()
    }

    @Test func everyFixtureHasAGoldenScreenAndAScript() throws {
        #expect(Self.screenIDs.count == 10)
        for id in Self.screenIDs {
            #expect(
                FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent("Fixtures/scripts/\(id).json").path),
                "no script for \(id)")
        }
    }

    @Test(arguments: screenIDs)
    func renderedAtDefaultStateMatchesGolden(id: String) throws {
        let screen = render(try fixtureScreen(id), try fixtureCatalogue.initialState)
        #expect(try goldenMatches(screen.jsonBytes, "Fixtures/expected/screens/\(id).json"))
    }

    @Test(arguments: screenIDs)
    func scriptedEventsMatchGolden(id: String) throws {
        let script = try JSONParser().parse(try readRepositoryFile("Fixtures/scripts/\(id).json"))
        let steps = try #require(script.objectValue?["steps"]?.arrayValue)
        let definition = try fixtureScreen(id)
        var state = try fixtureCatalogue.initialState
        var results: [JSONValue] = []
        for step in steps {
            let event = try #require(Self.event(step), "unreadable step \(step.canonicalText)")
            var result = JSONObject()
            result["event"] = step
            let values = (step.objectValue?["values"]?.objectValue?.pairs ?? []).map { (row: $0.key, value: $0.value) }
            switch Result(catching: { () throws(EventError) in try reduction(of: event, on: state, definition, values: values) }) {
            case .success(let reduction):
                let (next, effects) = (reduction.state, reduction.effects)
                if let submit = reduction.submit { result["submit"] = ["form": .string(submit.form), "valid": .bool(submit.valid)] }
                let changes = diff(old: render(definition, state), new: render(definition, next))
                #expect(changes.apply(to: render(definition, state)).sections == render(definition, next).sections)
                result["fromRevision"] = .number(Double(state.revision))
                result["toRevision"] = .number(Double(next.revision))
                result["changes"] = try JSONParser().parse(changes.jsonBytes)
                var writer = JSONWriter()
                writer.array(effects) { $0.write($1) }
                result["effects"] = try JSONParser().parse(writer.bytes)
                state = next
            case .failure(let error):
                result["error"] = .string(error.description)
            }
            results.append(.object(result))
        }
        let text = JSONValue.array(results).prettyText()
        #expect(try goldenMatches(Array(text.utf8), "Fixtures/expected/events/\(id).json"))
    }

    static func event(_ step: JSONValue) -> Event? {
        guard let object = step.objectValue else { return nil }
        if let row = object["select"]?.stringValue { return .select(row: row) }
        if let row = object["delete"]?.stringValue { return .delete(row: row) }
        if let row = object["switch"]?.stringValue, let isOn = object["isOn"]?.boolValue { return .setSwitch(row: row, isOn: isOn) }
        if let row = object["edit"]?.stringValue, let value = object["value"] { return .edit(row: row, value: value) }
        return nil
    }
}
