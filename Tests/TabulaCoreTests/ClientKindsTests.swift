import TabulaCore
import TabulaSamples
import Testing

/// A client that lists the row kinds it draws gets, for a kind it does not list, the first
/// fallback of the kind's chain that it lists, or no row; the screen's indexes and change
/// sets are those of the screen it gets.
@Suite struct ClientKindsTests {
    static let builtIn = Set(RowContent.builtInKinds)

    func state(_ kinds: Set<String>?, _ base: SessionState? = nil) throws -> SessionState {
        var state = try base ?? fixtureCatalogue.initialState
        state.client = ClientContext(kinds: kinds)
        return state
    }

    func row(_ screen: Screen, _ id: String) -> Row? {
        screen.sections.flatMap(\.rows).first { $0.id == id }
    }

    /// A stored context with an empty list of kinds (kept so before requests read `[]` as
    /// none) reads back as one that lists none: every kind as it is, not no row at all.
    @Test func aStoredEmptyListOfKindsListsNone() throws {
        #expect(try ClientContext(stored: JSONParser().parse(Array(#"{"kinds": []}"#.utf8))).kinds == nil)
        #expect(try ClientContext(stored: JSONParser().parse(Array(#"{"kinds": ["basic"]}"#.utf8))).kinds == ["basic"])
    }

    @Test func aKindTheClientDoesNotDrawBecomesItsFallbackOrIsLeftOut() throws {
        let settings = try fixtureScreen("settings")
        let everything = render(settings, try state(nil))
        #expect(row(everything, "updates")?.content == .custom(kind: "badge", fields: ["title": .string("Software Update"), "badge": .string("1")]))
        let listed = render(settings, try state(Self.builtIn.union(["badge"])))
        #expect(listed == everything, "a client that lists every kind gets every kind")

        let old = render(settings, try state(Self.builtIn))
        #expect(row(old, "updates")?.content == .leftRightTitles(leftTitle: "Software Update", rightTitle: "1"))
        #expect(old.sections.map(\.id) == everything.sections.map(\.id))

        // Without the fallback's kind either, the row is left out, as are other rows of kinds
        // the client does not list.
        let older = render(settings, try state(Self.builtIn.subtracting(["leftRightTitles"])))
        #expect(row(older, "updates") == nil && row(older, "version") == nil && row(older, "network-home") == nil)
        #expect(row(older, "details") != nil && row(older, "wifi") != nil)
        #expect(older.sections.first { $0.id == "about" }?.rows.map(\.id) == ["details"])
    }

    /// Random events for a client of each kind list: every change set, applied to the copy
    /// that client showed, gives the screen it shows next, by full and incremental render.
    @Test(arguments: [nil, ["basic", "titleSwitch", "checkmark"], Array(RowContent.builtInKinds)] as [[String]?])
    func changeSetsAreThoseOfTheScreenTheClientGets(kinds: [String]?) throws {
        let settings = try fixtureScreen("settings")
        var random = SplitMix64(seed: 45)
        var current = try state(kinds.map(Set.init))
        var copy = render(settings, current)
        for step in 0..<200 {
            guard let (event, _) = RandomEvents.pick(on: copy, &random) else { break }
            guard let (next, _) = try? reduce(current, event, settings) else { continue }
            let full = render(settings, next)
            #expect(render(settings, next, reusing: copy, renderedAt: current) == full, "step \(step): incremental render")
            #expect(try diff(old: copy, new: full).applyChecked(to: copy).sections == full.sections, "step \(step): \(event)")
            for row in full.sections.flatMap(\.rows) {
                #expect(kinds.map { $0.contains(row.kind) } ?? true, "step \(step): \(row.kind) is not drawn by \(kinds ?? [])")
            }
            (current, copy) = (next, full)
        }
    }

    /// A change of kinds is a change of the whole screen for the incremental render.
    @Test func anotherClientContextRendersTheScreenAgain() throws {
        let settings = try fixtureScreen("settings")
        let before = try state(nil)
        let after = try state(Self.builtIn, before)
        #expect(render(settings, after, reusing: render(settings, before), renderedAt: before) == render(settings, after))
    }

    /// An event on a row the client does not get, even as a fallback, is refused as for a
    /// hidden row.
    @Test func aRowLeftOutTakesNoEvents() throws {
        let catalogue = try Catalogue.load([
            DefinitionFile(
                name: "a.json",
                bytes: Array(
                    #"""
                    {"id": "a", "title": "A", "state": {"on": false}, "kinds": {"fancy": {"label": "string"}},
                     "sections": [{"id": "s", "rows": [{"id": "r", "kind": "fancy", "label": "x", "onSelect": {"toggle": "on"}}]}]}
                    """#.utf8))
        ])
        let definition = try #require(catalogue.screens.first)
        let client = try state(Self.builtIn, catalogue.initialState)
        #expect(render(definition, client).sections.isEmpty)
        #expect(throws: EventError.self) { try reduce(client, .select(row: "r"), definition) }
        #expect((try? reduce(catalogue.initialState, .select(row: "r"), definition)) != nil)
    }

    /// The client context is kept with the values, as stores save them.
    @Test func theClientIsStoredWithTheValues() throws {
        let state = SessionState(revision: 3, values: ["on": .scalar(.bool(true))], client: ClientContext(locale: "fr-CH", kinds: ["basic"]))
        let stored = try JSONParser().parse(state.valuesBytes)
        #expect(text(state.valuesBytes) == #"{"$client":{"kinds":["basic"],"locale":"fr-CH"},"on":true}"#)
        #expect(try SessionState(storedValues: stored, revision: 3) == state)
        #expect(text(SessionState(revision: 1, values: ["on": .scalar(.bool(true))]).valuesBytes) == #"{"on":true}"#)
    }
}
