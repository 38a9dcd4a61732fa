import Testing
import TabulaCore

@Suite struct ReduceTests {
    var initial: SessionState { (try? fixtureCatalogue.initialState) ?? SessionState() }

    func settings() throws -> ScreenDefinition { try fixtureScreen("settings") }

    @Test func switchStoresTheNewValueAndRaisesTheRevision() throws {
        let (state, effects) = try reduce(initial, .setSwitch(row: "wifi", isOn: false), try settings())
        #expect(state.scalar("wifi") == .bool(false))
        #expect(state.revision == 1)
        #expect(effects.isEmpty)
    }

    @Test func switchToItsCurrentValueChangesNothing() throws {
        let (state, _) = try reduce(initial, .setSwitch(row: "wifi", isOn: true), try settings())
        #expect(state == initial)
    }

    @Test func selectionSetsAValue() throws {
        let (state, _) = try reduce(initial, .select(row: "dark"), try settings())
        #expect(state.scalar("appearance") == .string("dark"))
        #expect(state.revision == 1)
        let (again, _) = try reduce(state, .select(row: "dark"), try settings())
        #expect(again == state)
    }

    @Test func navigateIsAnEffectNotAStateChange() throws {
        let (state, effects) = try reduce(initial, .select(row: "details"), try settings())
        #expect(state == initial)
        #expect(effects == [.navigate(screen: "about-details")])
    }

    @Test func openIsAnEffect() throws {
        let (state, effects) = try reduce(initial, .select(row: "licenses"), try fixtureScreen("about-details"))
        #expect(state == initial)
        #expect(effects == [.openURL("https://example.com/tabula/licenses")])
    }

    @Test func deletionRemovesTheItem() throws {
        let (state, _) = try reduce(initial, .delete(row: "network-home"), try settings())
        #expect(state.records("networks").map(\.id) == ["cafe"])
        #expect(state.revision == 1)
    }

    @Test func toggleAndActionListsRunInOrder() throws {
        let json = #"""
            {"id": "t", "title": "T", "state": {"on": false, "label": "none", "items": [{"id": "a"}, {"id": "b"}]},
             "sections": [{"id": "s", "rows": [
               {"id": "r", "kind": "basic", "title": "x",
                "onSelect": [{"toggle": "on"}, {"set": {"label": "{{on ? 'now on' : 'now off'}}"}}, {"navigate": "t"}, {"open": "app://{{label}}"}]},
               {"forEach": "items", "id": "i-{{item.id}}", "kind": "basic", "title": "{{item.id}}",
                "onSelect": [{"set": {"label": "{{item.id}}"}}, {"remove": "items"}]}
             ]}]}
            """#
        let catalogue = try Catalogue.load([DefinitionFile(name: "t.json", bytes: Array(json.utf8))])
        let definition = try #require(catalogue.screen(id: "t"))
        let (state, effects) = try reduce(catalogue.initialState, .select(row: "r"), definition)
        #expect(state.scalar("on") == .bool(true))
        #expect(state.scalar("label") == .string("now on"))
        #expect(effects == [.navigate(screen: "t"), .openURL("app://now on")])
        let (afterItem, _) = try reduce(state, .select(row: "i-b"), definition)
        #expect(afterItem.scalar("label") == .string("b"))
        #expect(afterItem.records("items").map(\.id) == ["a"])
        #expect(afterItem.revision == 2)
    }

    @Test(arguments: [
        (Event.select(row: "nope"), EventError.unknownRow("nope")),
        (.select(row: "version"), .rowNotSelectable("version")),
        (.setSwitch(row: "dark", isOn: true), .rowHasNoSwitch("dark")),
        (.delete(row: "wifi"), .rowNotDeletable("wifi")),
    ])
    func rejectsEventsThatDoNotApply(event: Event, error: EventError) throws {
        #expect(throws: error) { try reduce(initial, event, try settings()) }
    }

    @Test func rejectsEventsOnHiddenRows() throws {
        let (wifiOff, _) = try reduce(initial, .setSwitch(row: "wifi", isOn: false), try settings())
        #expect(throws: EventError.rowHidden("network-home")) { try reduce(wifiOff, .delete(row: "network-home"), try settings()) }
        var hiddenSection = wifiOff
        hiddenSection.values["bluetooth"] = .scalar(.bool(true))
        #expect(throws: EventError.rowHidden("details")) { try reduce(hiddenSection, .select(row: "details"), try settings()) }
    }

    @Test func aDeletedItemIsUnknownAfterwards() throws {
        let (state, _) = try reduce(initial, .delete(row: "network-home"), try settings())
        #expect(throws: EventError.unknownRow("network-home")) { try reduce(state, .delete(row: "network-home"), try settings()) }
    }
}
