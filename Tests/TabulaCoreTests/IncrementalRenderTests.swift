import PropertyBased
import TabulaCore
import TabulaSamples
import Testing

/// Rendering that reuses the previous screen must give exactly what a full render gives.
@Suite struct IncrementalRenderTests {
    /// A random state of the catalogue's schema: every key takes a random value of its type
    /// (lists: a random subset of their default records, in order).
    static func randomState(_ schema: StateSchema, _ random: inout SplitMix64, revision: Int) -> SessionState {
        var state = schema.initialState
        state.revision = revision
        for key in schema.keys {
            guard let declaration = schema.declarations[key], Bool.random(using: &random) else { continue }
            switch declaration.defaultValue {
            case .scalar(.bool):
                state.values[key] = .scalar(.bool(Bool.random(using: &random)))
            case .scalar(.number):
                state.values[key] = .scalar(.number(Double(Int.random(in: -3...3, using: &random))))
            case .scalar(.string(let text)):
                let choices = [text, "light", "dark", "automatic", "", "x"]
                state.values[key] = .scalar(.string(choices.randomElement(using: &random) ?? text))
            case .list(let records):
                state.values[key] = .list(records.filter { _ in Bool.random(using: &random) })
            }
        }
        return state
    }

    @Test func matchesAFullRenderForRandomStatesOfEveryFixture() async throws {
        let catalogue = try fixtureCatalogue
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SplitMix64(seed: seed)
            for definition in catalogue.screens {
                let before = Self.randomState(catalogue.schema, &random, revision: 4)
                let after = Self.randomState(catalogue.schema, &random, revision: 5)
                let previous = render(definition, before)
                #expect(render(definition, after, reusing: previous, renderedAt: before) == render(definition, after))
                #expect(render(definition, before, reusing: previous, renderedAt: before) == previous)
            }
        }
    }

    @Test func matchesAFullRenderAlongRandomEvents() throws {
        let catalogue = try fixtureCatalogue
        var random = SplitMix64(seed: 7)
        for definition in catalogue.screens {
            var state = catalogue.initialState
            var shown = render(definition, state)
            for _ in 0..<200 {
                let ids = shown.sections.flatMap(\.rows).map(\.id)
                guard let id = ids.randomElement(using: &random) else { break }
                let event: Event =
                    [.select(row: id), .setSwitch(row: id, isOn: Bool.random(using: &random)), .delete(row: id)]
                    .randomElement(using: &random) ?? .select(row: id)
                guard let reduction = try? reduction(of: event, on: state, definition) else { continue }
                let next = reduction.state
                let incremental = render(definition, next, reusing: shown, renderedAt: state)
                #expect(incremental == render(definition, next))
                #expect(render(definition, next, reusing: shown, renderedAt: state, changedKeys: reduction.changedKeys) == incremental)
                state = next
                shown = incremental
            }
        }
    }

    /// A key that only contents read (a header, a repeated row's title, a hidden row) leaves
    /// the rows where they are: they are replaced in place, and the hidden one stays hidden.
    @Test func rendersContentsInPlaceWhenNoRowComesOrGoes() throws {
        let json = """
            {"id": "s", "title": "T", "state": {"items": [{"id": "a"}, {"id": "b"}], "label": "x", "shown": false},
             "sections": [{"id": "main", "header": {"kind": "titleHeader", "title": "Head {{label}}"}, "rows": [
               {"id": "fixed", "kind": "basic", "title": "Fixed"},
               {"forEach": "items", "id": "item-{{item.id}}", "kind": "basic", "title": "{{item.id}} {{label}}"},
               {"id": "hidden", "kind": "basic", "title": "{{label}}", "visibleWhen": "shown"},
               {"id": "last", "kind": "basic", "title": "Last {{label}}"}]}]}
            """
        let catalogue = try Catalogue.load([DefinitionFile(name: "s.json", bytes: Array(json.utf8))])
        let definition = try #require(catalogue.screens.first)
        let state = catalogue.initialState
        var relabelled = state
        relabelled.revision = 1
        relabelled.values["label"] = .scalar(.string("y"))
        let previous = render(definition, state)
        let incremental = render(definition, relabelled, reusing: previous, renderedAt: state)
        #expect(incremental == render(definition, relabelled))
        #expect(incremental.sections.first?.rows.map(\.id) == ["fixed", "item-a", "item-b", "last"])
    }

    @Test func reusesSectionsOfALargeScreen() throws {
        let (definition, state) = try SyntheticScreens.definition(rowCount: 2_000)
        var changed = state
        changed.revision = 1
        changed.values["list3"] = .list(Array(state.records("list3").dropFirst()))
        let previous = render(definition, state)
        #expect(render(definition, changed, reusing: previous, renderedAt: state) == render(definition, changed))
    }
}
