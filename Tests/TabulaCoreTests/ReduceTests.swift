import TabulaCore
import Testing

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
        // An app's own scheme is written only when the service is told of it.
        #expect(throws: DefinitionErrors.self) { try Catalogue.load([DefinitionFile(name: "t.json", bytes: Array(json.utf8))]) }
        let catalogue = try Catalogue.load([DefinitionFile(name: "t.json", bytes: Array(json.utf8))], urlSchemes: URLSchemes(adding: ["app"]))
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

    @Test func actionsThatEndWhereTheyStartedChangeNothing() throws {
        let json = #"""
            {"id": "t", "title": "T", "state": {"on": false, "label": "a", "items": []},
             "sections": [{"id": "s", "rows": [
               {"id": "twice", "kind": "basic", "title": "x", "onSelect": [{"toggle": "on"}, {"toggle": "on"}]},
               {"id": "same", "kind": "basic", "title": "x", "onSelect": [{"set": {"label": "a"}}]},
               {"id": "away-and-back", "kind": "basic", "title": "x", "onSelect": [{"set": {"label": "b"}}, {"set": {"label": "a"}}]},
               {"id": "other", "kind": "basic", "title": "x", "onSelect": [{"set": {"label": "a"}}, {"toggle": "on"}]}
             ]}]}
            """#
        let catalogue = try Catalogue.load([DefinitionFile(name: "t.json", bytes: Array(json.utf8))])
        let definition = try #require(catalogue.screen(id: "t"))
        for row in ["twice", "same", "away-and-back"] {
            let (state, _) = try reduce(catalogue.initialState, .select(row: row), definition)
            #expect(state == catalogue.initialState, "\(row)")
        }
        let (changed, _) = try reduce(catalogue.initialState, .select(row: "other"), definition)
        #expect(changed.revision == 1)
        #expect(changed.scalar("on") == .bool(true))
    }

    @Test func changedKeysNamesChangedAddedAndRemovedKeys() {
        let base = SessionState(values: ["a": .scalar(.bool(true)), "b": .scalar(.string("x")), "c": .list([Record(id: "1")])])
        #expect(base.changedKeys(since: base).isEmpty)
        var edited = base
        edited.values["b"] = .scalar(.string("y"))
        #expect(edited.changedKeys(since: base) == ["b"])
        #expect(base.changedKeys(since: edited) == ["b"])
        var grown = base
        grown.values["d"] = .scalar(.number(1))
        #expect(grown.changedKeys(since: base) == ["d"])
        var swapped = base
        swapped.values["a"] = nil
        swapped.values["e"] = .scalar(.bool(true))
        #expect(swapped.changedKeys(since: base) == ["a", "e"])
        // Built in another order (another layout): compared by key, not by position.
        var rebuilt = SessionState()
        for key in ["c", "b", "a"] { rebuilt.values[key] = base.values[key] }
        #expect(rebuilt.changedKeys(since: base).isEmpty)
        rebuilt.values["c"] = .list([Record(id: "2")])
        #expect(rebuilt.changedKeys(since: base) == ["c"])
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

    /// `open` gives a client http, https, mailto and tel URLs, and the schemes the service
    /// adds; anything else is a definition problem when the definition says so itself.
    @Test func openURLSchemesAreChecked() throws {
        func problems(_ url: String, _ schemes: URLSchemes = .standardOnly) -> [String] {
            let json =
                #"{"id": "t", "title": "T", "state": {"u": "x"}, "sections": [{"id": "s", "rows": [{"id": "r", "kind": "basic", "title": "x", "onSelect": {"open": "\#(url)"}}]}]}"#
            do {
                _ = try Catalogue.load([DefinitionFile(name: "t.json", bytes: Array(json.utf8))], urlSchemes: schemes)
                return []
            } catch {
                return error.problems.map { "\($0.kind) \($0.message)" }
            }
        }
        for accepted in ["https://example.com", "HTTP://x", "mailto:a@example.com", "tel:+1555", "{{u}}", "https://x/{{u}}", "{{u}}:rest"] {
            #expect(problems(accepted).isEmpty, "\(accepted)")
        }
        #expect(problems("javascript:alert(1)").first?.contains(#"urlScheme the URL scheme "javascript" is not one a client may be given"#) == true)
        #expect(problems("data:text/html,x").count == 1)
        #expect(problems("myapp://x").count == 1)
        #expect(problems("myapp://x", try URLSchemes(adding: ["MyApp"])).isEmpty)
        #expect(problems("licenses").first?.contains("needs a scheme") == true)
        #expect(problems("/help/{{u}}").first?.contains("needs a scheme") == true)
        // Constants only make one URL, whatever the state: judged when the definition loads.
        #expect(problems("{{'javascript:'}}alert(1)").first?.contains(#"the URL scheme "javascript" is not one"#) == true)
        #expect(problems("{{'https:'}}//example.com").isEmpty && problems("{{'lic'}}enses").first?.contains("needs a scheme") == true)
        #expect(throws: URLSchemeError.self) { try URLSchemes(adding: ["1app"]) }
        // Schemes that run or read something on the client are refused whoever adds them.
        for scheme in ["javascript", "JavaScript", "data", "vbscript", "file", "blob"] {
            #expect(throws: URLSchemeError(scheme: scheme, refused: true)) { try URLSchemes(adding: ["myapp", scheme]) }
        }
        #expect(throws: URLSchemeError.self) { try URLSchemes(adding: ["my app"]) }
        #expect(URLSchemes.standardOnly.allows("HTTPS://x") && !URLSchemes.standardOnly.allows("javascript:x") && !URLSchemes.standardOnly.allows("x"))
        #expect(URLSchemes.scheme(of: " javascript:x") == nil && !URLSchemes.standardOnly.allows(" javascript:x"))
        // A control character, which a C client or a log line would cut or split the URL at.
        for url in ["https://a\u{0}.example", "https://a.example/\n", "tel:1\u{7F}", "https://a.example/\u{85}"] {
            #expect(URLSchemes.standardOnly.refusal(ofURL: url) == "a URL to open holds no control characters (percent-encode them)", "\(url)")
        }
        #expect(URLSchemes.standardOnly.refusal(ofURL: "https://a.example/%00é") == nil)
    }
}
