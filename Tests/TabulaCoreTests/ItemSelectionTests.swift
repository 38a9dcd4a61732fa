import TabulaCore
import TabulaSamples
import Testing

/// `filter`, `sort` and `limit` on a `forEach`: which items a row shows, in which order,
/// and that every change set between two states takes one screen to the other.
@Suite struct ItemSelectionTests {
    static func playlist(sort: String? = nil) -> String {
        let sortMember = sort.map { #", "sort": \#($0)"# } ?? ""
        return """
            {"id": "playlist", "title": "Songs {{count(songs, contains(item.title, query))}} of {{songs.count}}",
             "state": {"query": "", "shown": 3,
                       "songs": {"type": "list", "item": {"title": "string", "plays": "number", "liked": "bool"}, "default": []}},
             "sections": [{"id": "songs", "keepWhenEmpty": true, "rows": [
               {"id": "search", "kind": "textField", "title": "Search", "text": "{{query}}", "onEdit": {"set": "query"}},
               {"id": "song-{{item.id}}", "kind": "basic", "title": "{{item.title}}", "forEach": "songs",
                "filter": "contains(item.title, query)"\(sortMember), "limit": "shown", "onSelect": {"remove": "songs"}},
               {"id": "more", "kind": "button", "title": "Show more", "visibleWhen": "count(songs, contains(item.title, query)) > shown",
                "onSelect": {"set": {"shown": "shown + 3"}}}
             ]}]}
            """
    }

    static func song(_ id: String, _ title: String, plays: Double = 0, liked: Bool = false) -> Record {
        Record(id: id, fields: ["title": .string(title), "plays": .number(plays), "liked": .bool(liked)])
    }

    func load(_ json: String) throws -> ScreenDefinition {
        let catalogue = try Catalogue.load([DefinitionFile(name: "playlist.json", bytes: Array(json.utf8))])
        return try #require(catalogue.screen(id: "playlist"))
    }

    func state(_ songs: [Record], query: String = "", shown: Double = 3) -> SessionState {
        SessionState(values: ["songs": .list(songs), "query": .scalar(.string(query)), "shown": .scalar(.number(shown))])
    }

    func shownIDs(_ definition: ScreenDefinition, _ state: SessionState) -> [String] {
        render(definition, state).sections[0].rows.map(\.id).filter { $0.hasPrefix("song-") }
    }

    let songs = [
        Self.song("a", "Blue Monday", plays: 5), Self.song("b", "blue moon", plays: 9, liked: true), Self.song("c", "Angie", plays: 5),
        Self.song("d", "Bluebird", plays: 1, liked: true), Self.song("e", "Éclair", plays: 5),
    ]

    @Test func filterThenLimitInListOrder() throws {
        let definition = try load(Self.playlist())
        #expect(shownIDs(definition, state(songs, query: "BLUE")) == ["song-a", "song-b", "song-d"])
        #expect(shownIDs(definition, state(songs, query: "blue", shown: 2.9)) == ["song-a", "song-b"])
        #expect(shownIDs(definition, state(songs, query: "", shown: -1)).isEmpty)
        #expect(shownIDs(definition, state(songs, query: "", shown: 100)).count == 5)
        let screen = render(definition, state(songs, query: "blue", shown: 2))
        #expect(screen.title == "Songs 3 of 5")
        #expect(screen.sections[0].rows.last?.id == "more")
    }

    @Test func sortIsStableAndFoldsCase() throws {
        let byTitle = try load(Self.playlist(sort: #"{"by": "item.title"}"#))
        #expect(shownIDs(byTitle, state(songs, shown: 10)) == ["song-c", "song-a", "song-b", "song-d", "song-e"])
        let byPlays = try load(Self.playlist(sort: #"{"by": "item.plays", "order": "descending"}"#))
        // Equal keys keep the list's order, descending too.
        #expect(shownIDs(byPlays, state(songs, shown: 10)) == ["song-b", "song-a", "song-c", "song-e", "song-d"])
        let byLiked = try load(Self.playlist(sort: #"{"by": "item.liked"}"#))
        #expect(shownIDs(byLiked, state(songs, shown: 10)) == ["song-a", "song-c", "song-e", "song-b", "song-d"])
        // Sorting comes before the limit.
        #expect(shownIDs(byPlays, state(songs, shown: 2)) == ["song-b", "song-a"])
        // Same lowercased form: then by the text's own scalars ("B" before "b").
        let twins = [Self.song("x", "bee"), Self.song("y", "Bee")]
        #expect(shownIDs(byTitle, state(twins)) == ["song-y", "song-x"])
    }

    @Test func anItemTheSelectionLeavesOutIsHidden() throws {
        let definition = try load(Self.playlist())
        let filtered = state(songs, query: "blue", shown: 10)
        #expect(throws: EventError.rowHidden("song-c")) { try reduce(filtered, .select(row: "song-c"), definition) }
        let limited = state(songs, query: "", shown: 1)
        #expect(throws: EventError.rowHidden("song-b")) { try reduce(limited, .select(row: "song-b"), definition) }
        let (next, _) = try reduce(limited, .select(row: "more"), definition)
        #expect(shownIDs(definition, next) == ["song-a", "song-b", "song-c", "song-d"])
    }

    /// A long list's filter and `count` read its columns when a source gives them (as a
    /// service does): the screen is the one read item by item.
    @Test(arguments: [nil, #"{"by": "item.plays", "order": "descending"}"#])
    func columnsShowWhatItemsShow(sort: String?) throws {
        let definition = try load(Self.playlist(sort: sort))
        var generator = SplitMix64(seed: 56)
        let words = ["blue", "Moon", "angie", "bird", "éclair", "Blues", "sky", "\u{212A}elvin"]
        let long = (0..<400).map { index in
            Self.song(
                "s\(index)", "\(words[Int(generator.next() % 8)]) \(words[Int(generator.next() % 8)])", plays: Double(generator.next() % 5))
        }
        for query in ["", "blue", "MOON", "é", "bird b", "k", "zzz"] {
            for shown in [0.0, 3, 50, 1000] {
                let state = state(long, query: query, shown: shown)
                let itemByItem = render(definition, state)
                let fromColumns = ItemColumns.$source.withValue(TextSearchTests.EveryColumn()) { render(definition, state) }
                #expect(fromColumns == itemByItem, "query \(query), shown \(shown)")
            }
        }
    }

    /// Random edits of the list, the query and the limit: each change set takes the screen
    /// before to the screen after, and rendering from the screen before gives the same.
    @Test(arguments: [nil, #"{"by": "item.title"}"#, #"{"by": "item.plays", "order": "descending"}"#])
    func changeSetsFollowRandomEdits(sort: String?) throws {
        let definition = try load(Self.playlist(sort: sort))
        var generator = SplitMix64(seed: 54)
        let words = ["blue", "Moon", "angie", "bird", "éclair", "Blues", "sky"]
        var current = state(songs)
        var screen = render(definition, current)
        for step in 0..<400 {
            var next = current
            var list = next.records("songs")
            switch generator.next() % 6 {
            case 0:
                let title = "\(words[Int(generator.next() % 7)]) \(words[Int(generator.next() % 7)])"
                list.insert(
                    Self.song("n\(step)", title, plays: Double(generator.next() % 4)), at: Int(generator.next() % UInt64(list.count + 1)))
            case 1 where !list.isEmpty:
                list.remove(at: Int(generator.next() % UInt64(list.count)))
            case 2 where list.count > 1:
                let item = list.remove(at: Int(generator.next() % UInt64(list.count)))
                list.insert(item, at: Int(generator.next() % UInt64(list.count + 1)))
            case 3:
                let query = String(words[Int(generator.next() % 7)].prefix(Int(generator.next() % 4)))
                next.values["query"] = .scalar(.string(query))
            case 4:
                next.values["shown"] = .scalar(.number(Double(generator.next() % 8)))
            default:
                if !list.isEmpty { list[Int(generator.next() % UInt64(list.count))].fields["plays"] = .number(Double(generator.next() % 4)) }
            }
            next.values["songs"] = .list(list)
            next.revision = current.revision + 1
            let new = render(definition, next)
            // A change set carries no revision: the event's answer says it.
            var applied = try diff(old: screen, new: new).applyChecked(to: screen)
            applied.revision = new.revision
            #expect(applied == new)
            #expect(render(definition, next, reusing: screen, renderedAt: current) == new)
            current = next
            screen = new
        }
    }

    @Test(arguments: [
        (#""id": "x", "filter": "true""#, "$.sections[0].rows[0].filter", #""filter" chooses among the items of a "forEach"; this row has none"#),
        (
            #""id": "x{{item.id}}", "forEach": "songs", "filter": "item.title""#, "$.sections[0].rows[0].filter",
            "expected a bool expression, but \"item.title\" is a string"
        ),
        (
            #""id": "x{{item.id}}", "forEach": "songs", "limit": "query""#, "$.sections[0].rows[0].limit",
            "expected a number expression, but \"query\" is a string"
        ),
        (
            #""id": "x{{item.id}}", "forEach": "songs", "limit": "length(item.title)""#, "$.sections[0].rows[0].limit",
            #""limit" counts the items, so it reads none of them: 'item' is not defined in it"#
        ),
        (
            #""id": "x{{item.id}}", "forEach": "songs", "sort": {"by": "item.title", "order": "up"}"#, "$.sections[0].rows[0].sort.order",
            #""sort" is {"by": EXPRESSION, "order": "ascending" or "descending"}, like {"by": "item.date", "order": "descending"}"#
        ),
        (
            #""id": "x{{item.id}}", "forEach": "songs", "sort": {"by": "item.nope"}"#, "$.sections[0].rows[0].sort.by",
            "the items of 'songs' have no field 'nope'; they have: id, title"
        ),
    ])
    func selectionProblemsNameWhatToFix(members: String, path: String, message: String) {
        let json = """
            {"id": "p", "title": "P", "state": {"query": "", "songs": {"type": "list", "item": {"title": "string"}, "default": []}},
             "sections": [{"id": "s", "rows": [{"kind": "basic", "title": "T", \(members)}]}]}
            """
        let problems = definitionProblems(["p.json": json])
        #expect(problems.map(\.path) == [path])
        #expect(problems.map(\.message) == [message])
    }
}
