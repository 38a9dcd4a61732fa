import TabulaCore
import Testing

@Suite struct RenderTests {
    func catalogue(_ json: String) throws -> Catalogue {
        try Catalogue.load([DefinitionFile(name: "t.json", bytes: Array(json.utf8))])
    }

    @Test func settingsAtDefaultState() throws {
        let screen = render(try fixtureScreen("settings"), try fixtureCatalogue.initialState)
        #expect(screen.sections.map(\.id) == ["radios", "appearance", "about"])
        #expect(screen.sections[0].rows.map(\.id) == ["wifi", "network-home", "network-cafe", "bluetooth"])
        #expect(screen.sections[0].footer == .textFooter(text: "2 known networks"))
        #expect(screen.sections[0].rows[1].content == .leftRightTitles(leftTitle: "Home", rightTitle: "Secured"))
        #expect(screen.sections[0].rows[2].content == .leftRightTitles(leftTitle: "Corner Café", rightTitle: "Open"))
        #expect(screen.sections[0].rows[1].deletable && !screen.sections[0].rows[1].selectable)
        #expect(
            screen.sections[1].rows.map(\.content) == [
                .checkmark(title: "Light", isChecked: false), .checkmark(title: "Dark", isChecked: false),
                .checkmark(title: "Automatic", isChecked: true),
            ])
        #expect(screen.sections[2].rows[1].selectable && screen.sections[2].rows[1].accessory == .disclosureIndicator)
        #expect(screen.style == .insetGrouped && screen.revision == 0)
    }

    @Test func hiddenRowsAndSectionsDisappear() throws {
        var state = try fixtureCatalogue.initialState
        state.values["wifi"] = .scalar(.bool(false))
        state.values["bluetooth"] = .scalar(.bool(true))
        let screen = render(try fixtureScreen("settings"), state)
        #expect(screen.sections.map(\.id) == ["radios", "appearance"])  // about: !bluetooth || wifi is false
        #expect(screen.sections[0].rows.map(\.id) == ["wifi", "bluetooth"])
    }

    @Test func sectionWithNoVisibleRowsDisappearsUnlessKept() throws {
        let json = #"""
            {"id": "t", "title": "T", "state": {"show": false},
             "sections": [
               {"id": "gone", "rows": [{"id": "a", "kind": "empty", "visibleWhen": "show"}]},
               {"id": "kept", "keepWhenEmpty": true, "header": {"kind": "titleHeader", "title": "Kept"},
                "rows": [{"id": "b", "kind": "empty", "visibleWhen": "show"}]},
               {"id": "none", "rows": []}
             ]}
            """#
        let definition = try #require(try catalogue(json).screen(id: "t"))
        let screen = render(definition, try catalogue(json).initialState)
        #expect(screen.sections.map(\.id) == ["kept"])
        #expect(screen.sections[0].rows.isEmpty)
    }

    @Test func forEachRowsTakeTheirIdentityFromItems() throws {
        var state = try fixtureCatalogue.initialState
        state.values["networks"] = .list([
            Record(id: "cafe", fields: ["name": .string("Corner Café"), "secure": .bool(false)]),
            Record(id: "office", fields: ["name": .string("Office"), "secure": .bool(true)]),
        ])
        let screen = render(try fixtureScreen("settings"), state)
        #expect(screen.sections[0].rows.map(\.id) == ["wifi", "network-cafe", "network-office", "bluetooth"])
        #expect(screen.sections[0].footer == .textFooter(text: "2 known networks"))
    }

    @Test func customKindsAndDimensions() throws {
        let json = #"""
            {"id": "t", "title": "{{level}}%", "kinds": {"gauge": {"label": "string", "level": "number", "charging": "bool"}},
             "state": {"level": -5},
             "sections": [{"id": "s", "header": {"kind": "gauge", "label": "Head", "level": 1, "charging": false},
               "rows": [{"id": "g", "kind": "gauge", "label": "Battery", "level": "level", "charging": "level > 0",
                         "height": "level", "estimatedHeight": 44}]}]}
            """#
        let loaded = try catalogue(json)
        let screen = render(try #require(loaded.screen(id: "t")), loaded.initialState)
        #expect(screen.title == "-5%")
        let row = screen.sections[0].rows[0]
        #expect(row.content == .custom(kind: "gauge", fields: ["label": .string("Battery"), "level": .number(-5), "charging": .bool(false)]))
        #expect(row.height == 0)  // negative heights are clamped
        #expect(row.estimatedHeight == 44)
        #expect(screen.sections[0].header == .custom(kind: "gauge", fields: ["label": .string("Head"), "level": .number(1), "charging": .bool(false)]))
        #expect(throws: Never.self) { try screen.validate() }
    }

    @Test func everyFixtureRendersAValidScreen() throws {
        for definition in try fixtureCatalogue.screens {
            #expect(throws: Never.self) { try render(definition, try fixtureCatalogue.initialState).validate() }
        }
    }
}

@Suite struct StateBytesTests {
    @Test func directEncodingEqualsTheCanonicalJSON() throws {
        var state = try fixtureCatalogue.initialState
        state.values["extra"] = .list([Record(id: "b", fields: ["a": .number(1), "z": .bool(true), "Id": .string("x")]), Record(id: "a")])
        #expect(state.valuesBytes == state.valuesJSON.canonicalBytes)
    }
}
