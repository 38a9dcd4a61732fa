import Foundation
import TabulaCore
import Testing

/// Every fixture rendered at its default state equals `Fixtures/expected/screens/ID.json`;
/// the scripted events of `Fixtures/scripts/ID.json` give `Fixtures/expected/events/ID.json`
/// (steps: `{"select": ROW, "values"?: {ROW: VALUE}, "answer"?: ANSWER}`, `{"delete": ROW}`,
/// `{"switch": ROW, "isOn": BOOL}`, `{"edit": ROW, "value": VALUE}`; ANSWER is the backend's
/// answer to the step's `call`, `{"state"?: {KEY: VALUE}, "errors"?: {ROW: MESSAGE},
/// "effects"?: [{"type": "navigate", "screen": ID}]}`: without one, the step records what
/// the backend would be asked and changes nothing; `{"move": ROW, "to": PATH}`;
/// `{"action": ROW, "id": ACTION}`). An item screen is rendered showing its list's first
/// item, or in a script the script's `"item"`.
/// Run with `TABULA_UPDATE_GOLDEN=1` to rewrite the expected files after an intended change.
@Suite struct FixtureGoldenTests {
    static var screenIDs: [String] {
        ((try? fixtureCatalogue.screens.map(\.id)) ?? []).sorted()
    }

    @Test func everyFixtureHasAGoldenScreenAndAScript() throws {
        #expect(Self.screenIDs.count == 12)
        for id in Self.screenIDs {
            #expect(
                FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent("Fixtures/scripts/\(id).json").path),
                "no script for \(id)")
        }
    }

    @Test(arguments: screenIDs)
    func renderedAtDefaultStateMatchesGolden(id: String) throws {
        let definition = try fixtureScreen(id)
        let state = try fixtureCatalogue.initialState
        let screen = render(definition, state, item: definition.item.flatMap { state.records($0).first?.id })
        #expect(try goldenMatches(screen.jsonBytes, "Fixtures/expected/screens/\(id).json"))
    }

    @Test(arguments: screenIDs)
    func scriptedEventsMatchGolden(id: String) throws {
        let script = try JSONParser().parse(try readRepositoryFile("Fixtures/scripts/\(id).json"))
        let steps = try #require(script.objectValue?["steps"]?.arrayValue)
        let definition = try fixtureScreen(id)
        var state = try fixtureCatalogue.initialState
        let item = script.objectValue?["item"]?.stringValue
        var results: [JSONValue] = []
        for step in steps {
            let event = try #require(Self.event(step), "unreadable step \(step.canonicalText)")
            var result = JSONObject()
            result["event"] = step
            let values = (step.objectValue?["values"]?.objectValue?.pairs ?? []).map { (row: $0.key, value: $0.value) }
            let answer = try step.objectValue?["answer"].map(Self.callAnswer)
            switch Result(catching: { () throws(EventError) in try reduction(of: event, on: state, definition, values: values, callAnswer: answer, item: item) }
            ) {
            case .success(let reduction) where reduction.pendingCall != nil:
                let call = try #require(reduction.pendingCall)
                var values = JSONObject()
                for (row, value) in call.values { values[row] = value?.json ?? .null }
                result["call"] = ["action": .string(call.action), "values": .object(values)]
            case .success(let reduction):
                let (next, effects) = (reduction.state, reduction.effects)
                #expect(Set(reduction.changedKeys) == next.changedKeys(since: state), "changedKeys of \(step.canonicalText)")
                #expect(Set(reduction.changedKeys).count == reduction.changedKeys.count, "a key listed twice: \(reduction.changedKeys)")
                if let submit = reduction.submit { result["submit"] = ["form": .string(submit.form), "valid": .bool(submit.valid)] }
                // A move's answer starts from the copy with the row where the user dropped it.
                var seen = render(definition, state, item: item)
                if case .move(let row, let destination) = event { seen = seen.moving(row: row, to: destination) ?? seen }
                let changes = diff(old: seen, new: render(definition, next, item: item))
                #expect(changes.apply(to: seen).sections == render(definition, next, item: item).sections)
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

    /// A script's backend answer, its state read as the catalogue declares it.
    static func callAnswer(_ json: JSONValue) throws -> CallAnswer {
        var answer = CallAnswer()
        let given = json.objectValue?["state"] ?? .object(JSONObject())
        let decoded = try fixtureCatalogue.schema.state(from: given)
        for key in given.objectValue?.keys ?? [] { answer.values[key] = decoded.values[key] }
        for (row, message) in json.objectValue?["errors"]?.objectValue?.pairs ?? [] { answer.errors[row] = message.stringValue }
        for effect in json.objectValue?["effects"]?.arrayValue ?? [] {
            if let screen = effect.objectValue?["screen"]?.stringValue {
                answer.effects.append(.navigate(screen: screen, item: effect.objectValue?["item"]?.stringValue))
            }
        }
        return answer
    }

    static func event(_ step: JSONValue) -> Event? {
        guard let object = step.objectValue else { return nil }
        if let row = object["select"]?.stringValue { return .select(row: row) }
        if let row = object["delete"]?.stringValue { return .delete(row: row) }
        if let row = object["switch"]?.stringValue, let isOn = object["isOn"]?.boolValue { return .setSwitch(row: row, isOn: isOn) }
        if let row = object["edit"]?.stringValue, let value = object["value"] { return .edit(row: row, value: value) }
        if let row = object["move"]?.stringValue, let to = object["to"]?.objectValue,
            let section = to["section"]?.numberValue, let index = to["row"]?.numberValue
        {
            return .move(row: row, to: RowPath(section: Int(section), row: Int(index)))
        }
        if let row = object["action"]?.stringValue, let id = object["id"]?.stringValue { return .action(row: row, action: id) }
        return nil
    }
}
