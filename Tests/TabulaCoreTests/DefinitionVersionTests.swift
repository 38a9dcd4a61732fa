import TabulaICU
import TabulaSamples
import Testing

@testable import TabulaCore

/// Definition ids, definition documents, and state saved under another version of the
/// definitions.
@Suite struct DefinitionVersionTests {
    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.hexDigest([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // Messages of 55, 56 and 64 bytes straddle the padding's block boundary.
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 55)) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 56)) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 64)) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    @Test func theSameContentGivesTheSameIDWhateverTheFileLooksLike() throws {
        let original = try fixtureScreen("settings")
        let json = try JSONParser().parse(try readRepositoryFile("Fixtures/screens/settings.json"))
        var reordered = JSONObject()
        for (key, value) in (json.objectValue?.pairs ?? []).reversed() { reordered[key] = value }
        reordered["$schema"] = "https://example.com/screen.schema.json"
        let reformatted = DefinitionFile(name: "renamed.json", bytes: Array(JSONValue.object(reordered).prettyText(indentation: 7).utf8))
        let catalogue = try Catalogue.load(try fixtureFiles().filter { $0.name != "settings.json" } + [reformatted], strings: fixtureStrings)
        let reloaded = try #require(catalogue.screen(id: "settings"))
        #expect(reloaded.definitionID == original.definitionID)
        #expect(reloaded.document == original.document)
        #expect(DefinitionDocument.isWellFormedID(original.definitionID))
        #expect(render(original, try fixtureCatalogue.initialState).definition == original.definitionID)
    }

    @Test func whatCanChangeTheScreenChangesTheID() throws {
        let files = try fixtureFiles()
        func ids(_ edit: (String) -> String, in file: String) throws -> [String: String] {
            let edited = files.map { $0.name == file ? DefinitionFile(name: $0.name, bytes: Array(edit(String(decoding: $0.bytes, as: UTF8.self)).utf8)) : $0 }
            return Dictionary(uniqueKeysWithValues: try Catalogue.load(edited, strings: fixtureStrings).screens.map { ($0.id, $0.definitionID) })
        }
        let before = try ids({ $0 }, in: "settings.json")
        let retitled = try ids({ $0.replacingOccurrences(of: "\"{{@settings.bluetooth}}\"", with: "\"BT\"") }, in: "settings.json")
        #expect(retitled["settings"] != before["settings"])
        #expect(retitled.filter { $0.key != "settings" } == before.filter { $0.key != "settings" })

    }

    /// A definition's document holds the texts of the messages it names, in every locale: a
    /// changed translation is a new version of the screens that name it, and of no other.
    @Test func aChangedTranslationChangesTheIDsOfTheScreensThatNameIt() throws {
        let sources = try #require(fixtureStrings)
        func ids(_ edit: (String) -> String, in table: String) throws -> [String: String] {
            var edited = sources
            edited.files = sources.files.map {
                $0.name == table ? DefinitionFile(name: $0.name, bytes: Array(edit(String(decoding: $0.bytes, as: UTF8.self)).utf8)) : $0
            }
            return Dictionary(uniqueKeysWithValues: try Catalogue.load(try fixtureFiles(), strings: edited).screens.map { ($0.id, $0.definitionID) })
        }
        let before = try ids({ $0 }, in: "fr.json")
        let connectivity = try ids({ $0.replacingOccurrences(of: "\"Connectivité\"", with: "\"Réseaux\"") }, in: "fr.json")
        #expect(connectivity["settings"] != before["settings"])
        #expect(connectivity.filter { $0.key != "settings" } == before.filter { $0.key != "settings" })
        // "common.on" is named by about-details and table-director.
        let on = try ids({ $0.replacingOccurrences(of: "\"Włączone\"", with: "\"Wł.\"") }, in: "pl.json")
        #expect(Set(on.keys.filter { on[$0] != before[$0] }) == ["about-details", "table-director"])
        let restored = try #require(try fixtureCatalogue.screen(id: "settings"))
        let read = try ScreenDefinition.reading(document: restored.document.bytes, rules: ICULocaleRules())
        var state = try fixtureCatalogue.initialState
        state.client.locale = "pl"
        #expect(render(read, state) == render(restored, state))
    }

    /// A screen reads a key that another declares: the declaration is part of its document.
    @Test func aSharedKeysDeclarationIsPartOfTheReadersID() throws {
        func ids(flag: String, other: String) throws -> [String: String] {
            let owner = #"{"id": "owner", "title": "Owner", "state": {"flag": \#(flag), "other": \#(other)}, "sections": []}"#
            let reader = #"{"id": "reader", "title": "{{flag ? 'On' : 'Off'}}", "sections": []}"#
            let catalogue = try Catalogue.load([
                DefinitionFile(name: "owner.json", bytes: Array(owner.utf8)), DefinitionFile(name: "reader.json", bytes: Array(reader.utf8)),
            ])
            return Dictionary(uniqueKeysWithValues: catalogue.screens.map { ($0.id, $0.definitionID) })
        }
        let before = try ids(flag: "true", other: "1")
        let flagChanged = try ids(flag: "false", other: "1")
        let otherChanged = try ids(flag: "true", other: "2")
        #expect(flagChanged["reader"] != before["reader"])
        #expect(otherChanged["reader"] == before["reader"])
        #expect(otherChanged["owner"] != before["owner"])
        let reader = try #require(
            try Catalogue.load([
                DefinitionFile(name: "owner.json", bytes: Array(#"{"id": "owner", "title": "O", "state": {"flag": true}, "sections": []}"#.utf8)),
                DefinitionFile(name: "reader.json", bytes: Array(#"{"id": "reader", "title": "{{flag ? 'On' : 'Off'}}", "sections": []}"#.utf8)),
            ]).screen(id: "reader"))
        // The document declares what it reads, so it renders alone as it did in its catalogue.
        let alone = try ScreenDefinition.reading(document: reader.document.bytes, rules: ICULocaleRules())
        #expect(render(alone, SessionState()).title == "On")
    }

    @Test func aDocumentReadsBackAsTheSameDefinition() throws {
        var random = SplitMix64(seed: 7)
        for definition in try fixtureCatalogue.screens {
            let restored = try ScreenDefinition.reading(document: definition.document.bytes, rules: ICULocaleRules())
            #expect(restored.definitionID == definition.definitionID)
            #expect(restored.document == definition.document)
            for revision in 0..<20 {
                let state = IncrementalRenderTests.randomState(try fixtureCatalogue.schema, &random, revision: revision)
                #expect(render(restored, state) == render(definition, state), "\(definition.id) at a random state")
            }
        }
        #expect(throws: DefinitionErrors.self) { try ScreenDefinition.reading(document: Array("{\"id\": 3}".utf8), rules: ICULocaleRules()) }
        #expect(throws: DefinitionErrors.self) { try ScreenDefinition.reading(document: Array("not json".utf8), rules: ICULocaleRules()) }
    }

    @Test func storedValuesReadBackWithoutASchema() throws {
        var random = SplitMix64(seed: 11)
        for revision in 0..<50 {
            let state = IncrementalRenderTests.randomState(try fixtureCatalogue.schema, &random, revision: revision)
            let stored = try SessionState(storedValues: try JSONParser().parse(state.valuesBytes), revision: revision)
            #expect(stored == state)
        }
    }

    /// What no store writes is damage, and reading it throws: it used to be dropped, so a
    /// damaged state read back as the definitions' defaults.
    @Test(arguments: [
        (#"[]"#, "$"), (#"{"a": null}"#, "$.a"), (#"{"b": [1]}"#, "$.b[0]"), (#"{"c": {"x": 1}}"#, "$.c"),
        (#"{"n": [{"name": "x"}]}"#, "$.n[0]"), (#"{"n": [{"id": "a", "f": [1]}]}"#, "$.n[0].f"),
        (#"{"$client": 3}"#, "$.$client"), (#"{"$client": {"kinds": "basic"}}"#, "$.$client.kinds"),
        (#"{"$client": {"kinds": [1]}}"#, "$.$client.kinds[0]"), (#"{"$client": {"locale": 5}}"#, "$.$client.locale"),
        // Two items of one id would be two rows of one id on screen.
        (#"{"n": [{"id": "a"}, {"id": "b"}, {"id": "a"}]}"#, "$.n[2].id"),
    ])
    func storedValuesThatNoStoreWritesDoNotRead(stored: String, path: String) throws {
        let json = try JSONParser().parse(Array(stored.utf8))
        let error = try #require(throws: StateDecodingError.self) { try SessionState(storedValues: json, revision: 3) }
        #expect(error.path == path, "\(error)")
    }

    /// The version of a definition that declares `wifi` (bool), `mode` (string) and
    /// `count` (number); earlier versions saved the states the tests below read.
    static func currentVersion() throws -> ScreenDefinition {
        try #require(
            try Catalogue.load([
                DefinitionFile(
                    name: "v2.json",
                    bytes: Array(
                        """
                        {"id": "v2", "title": "{{mode}}",
                         "state": {"wifi": true, "mode": "auto", "count": 2},
                         "sections": [{"id": "s", "rows": [
                           {"id": "wifi", "kind": "titleSwitch", "title": "Wi-Fi {{count}}", "isOn": "wifi", "onSwitch": {"set": "wifi"}},
                           {"id": "dark", "kind": "checkmark", "title": "Dark", "isChecked": "mode == 'dark'", "onSelect": {"set": {"mode": "dark"}}}]}]}
                        """.utf8))
            ]).screen(id: "v2"))
    }

    /// A key added since the state was saved reads as its default.
    @Test func aKeyAddedSinceTakesItsDefault() throws {
        let definition = try Self.currentVersion()
        let saved = SessionState(revision: 4, values: ["wifi": .scalar(.bool(false)), "mode": .scalar(.string("dark"))])
        #expect(render(definition, saved).sections[0].rows[0].content == .titleSwitch(title: "Wi-Fi 2", isOn: false))
        let (switched, _) = try reduce(saved, .setSwitch(row: "wifi", isOn: true), definition)
        #expect(switched.values == ["wifi": .scalar(.bool(true)), "mode": .scalar(.string("dark"))])
    }

    /// A key no longer declared is ignored by rendering, and kept by events.
    @Test func aRemovedKeyIsIgnoredAndKept() throws {
        let definition = try Self.currentVersion()
        let saved = SessionState(revision: 4, values: ["wifi": .scalar(.bool(true)), "legacy": .scalar(.string("x"))])
        #expect(render(definition, saved) == render(definition, SessionState(revision: 4, values: ["wifi": .scalar(.bool(true))])))
        let (selected, _) = try reduce(saved, .select(row: "dark"), definition)
        #expect(selected.revision == 5)
        #expect(selected.values["legacy"] == .scalar(.string("x")))
        #expect(selected.values["mode"] == .scalar(.string("dark")))
    }

    /// A key saved with another type reads as its default, and keeps the saved value until
    /// an action sets it.
    @Test func aRetypedKeyTakesItsDefault() throws {
        let definition = try Self.currentVersion()
        // `mode` was a bool in the version that saved this state.
        let saved = SessionState(revision: 4, values: ["wifi": .scalar(.bool(false)), "mode": .scalar(.bool(true))])
        #expect(render(definition, saved).title == "auto")
        let (switched, _) = try reduce(saved, .setSwitch(row: "wifi", isOn: true), definition)
        #expect(switched.values["mode"] == .scalar(.bool(true)))
        let (selected, _) = try reduce(saved, .select(row: "dark"), definition)
        #expect(selected.values["mode"] == .scalar(.string("dark")))
        // Setting a switch to what the definition reads changes nothing.
        let (unchanged, _) = try reduce(saved, .setSwitch(row: "wifi", isOn: false), definition)
        #expect(unchanged == saved)
    }

    /// A state remembers the definition it was found to conform to, until its values change;
    /// another definition checks it again.
    @Test func aStateRemembersWhichDefinitionItConformsTo() throws {
        let definition = try Self.currentVersion()
        var conformed = definition.conformed(SessionState(revision: 1, values: ["mode": .scalar(.bool(true))]))
        #expect(conformed.values["mode"] == .scalar(.string("auto")) && conformed.conformsTo == definition.document.fingerprint)
        #expect(definition.conformed(conformed) == conformed)
        let (next, _) = try reduce(conformed, .select(row: "dark"), definition)
        #expect(next.conformsTo == definition.document.fingerprint, "reduce stores values of the declared types")

        conformed.values["mode"] = .scalar(.bool(true))
        #expect(conformed.conformsTo == nil)
        #expect(definition.conformed(conformed).values["mode"] == .scalar(.string("auto")))

        let other = try #require(
            try Catalogue.load([
                DefinitionFile(
                    name: "v1.json",
                    bytes: Array(
                        """
                        {"id": "v2", "title": "{{mode ? 'On' : 'Off'}}", "state": {"mode": true}, "sections": []}
                        """.utf8))
            ]).screen(id: "v2"))
        let readByOther = other.conformed(definition.conformed(SessionState(revision: 1)))
        #expect(readByOther.values["mode"] == .scalar(.bool(true)))
        #expect(render(other, definition.conformed(SessionState(revision: 1))).title == "On")
    }

    /// A client holds a copy rendered by one version of a random definition at some
    /// revision; the definition changes at random (a deployment) and events go on. The
    /// change set from the copy to the new version's screen follows the batch-update rules
    /// and brings the copy to that screen exactly.
    @Test(arguments: 0..<8)
    func oldCopiesCatchUpWithRandomNewVersions(batch: Int) throws {
        var structural = 0  // cases whose change set inserts, deletes or moves something
        for seed in (batch * 50)..<(batch * 50 + 50) {
            var random = SplitMix64(seed: UInt64(seed))
            var evolving = EvolvingDefinition.random(&random)
            let first = try Catalogue.load([evolving.file])
            let old = try #require(first.screens.first)
            var state = first.initialState
            var copies: [Screen] = [render(old, state)]
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                guard let (event, _) = RandomEvents.pick(on: render(old, state), &random) else { break }
                state = (try? reduce(state, event, old).state) ?? state
                copies.append(render(old, state))
            }
            evolving.evolve(&random, edits: Int.random(in: 1...6, using: &random))
            let second = try Catalogue.load([evolving.file])
            let new = try #require(second.screens.first)
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                guard let (event, _) = RandomEvents.pick(on: render(new, state), &random) else { break }
                state = (try? reduce(state, event, new).state) ?? state
            }
            let current = render(new, state)
            let copy = copies[Int.random(in: copies.indices, using: &random)]
            let changes = diff(old: copy, new: current)
            let violations = BatchUpdateRules.violations(of: changes, from: copy, to: current)
            #expect(violations.isEmpty, "seed \(seed): \(violations)")
            var applied = try changes.applyChecked(to: copy)
            applied.revision = current.revision
            applied.definition = current.definition
            #expect(applied == current, "seed \(seed)")
            if !(changes.rows.inserted.isEmpty && changes.rows.deleted.isEmpty && changes.sections.isEmpty) { structural += 1 }
        }
        #expect(structural >= 20, "the random versions hardly change the screens' structure")
    }

    private func fixtureFiles() throws -> [DefinitionFile] {
        try fixtureCatalogue.screens.map { DefinitionFile(name: $0.file, bytes: try readRepositoryFile("Fixtures/screens/\($0.file)")) }
    }
}
