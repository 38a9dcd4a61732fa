import TabulaCore
import Testing

/// The list actions of the core: a move among the rows a `forEach` shows, fields of an
/// item set by actions and switches, and `append` with the ids Tabula gives.
@Suite struct ListActionTests {
    static let json = """
        {"id": "tasks", "title": "Tasks",
         "state": {"hideDone": false, "draft": "", "tasks": {"type": "list", "item": {"title": "string", "done": "bool"}, "default": [
           {"id": "a", "title": "A", "done": false}, {"id": "b", "title": "B", "done": false}, {"id": "c", "title": "C", "done": true},
           {"id": "d", "title": "D", "done": false}, {"id": "e", "title": "E", "done": false}]}},
         "sections": [{"id": "list", "rows": [
           {"id": "task-{{item.id}}", "kind": "titleSwitch", "forEach": "tasks", "title": "{{item.title}}", "isOn": "item.done",
            "filter": "!hideDone || !item.done", "onSwitch": {"set": "item.done"}, "onMove": {"move": "tasks"},
            "onSelect": {"set": {"item.title": "{{item.title}}!"}}},
           {"id": "add", "kind": "button", "title": "Add", "onSelect": [{"append": {"to": "tasks", "item": {"title": "{{draft}}", "done": false}}},
                                                                      {"append": {"to": "tasks", "item": {"title": "first", "done": true}, "at": "start"}}]},
           {"id": "add-fixed", "kind": "button", "title": "Add", "onSelect": {"append": {"to": "tasks", "item": {"id": "{{draft}}", "title": "T", "done": false}}}}
         ]}]}
        """

    func definition() throws -> (ScreenDefinition, SessionState) {
        let catalogue = try Catalogue.load([DefinitionFile(name: "tasks.json", bytes: Array(Self.json.utf8))])
        return (try #require(catalogue.screen(id: "tasks")), catalogue.initialState)
    }

    func ids(_ state: SessionState) -> [String] { state.records("tasks").map(\.id) }

    @Test func aMoveAmongShownRowsLeavesHiddenItemsInPlace() throws {
        let (definition, initial) = try definition()
        var state = initial
        state.values["hideDone"] = .scalar(.bool(true))
        // On screen: A B D E (C is done and hidden). Drag E to between A and B.
        let moved = try reduce(state, .move(row: "task-e", to: RowPath(section: 0, row: 1)), definition).state
        #expect(ids(moved) == ["a", "e", "b", "c", "d"])
        // Drag A last among the tasks (after E): it follows the item whose row precedes it.
        let last = try reduce(state, .move(row: "task-a", to: RowPath(section: 0, row: 3)), definition).state
        #expect(ids(last) == ["b", "c", "d", "e", "a"])
        // Past the tasks (next to the buttons) or at its own place.
        #expect(throws: EventError.self) { try reduce(state, .move(row: "task-a", to: RowPath(section: 0, row: 5)), definition) }
        #expect(try reduce(state, .move(row: "task-b", to: RowPath(section: 0, row: 1)), definition).state == state)
        #expect(throws: EventError.rowNotMovable("add")) { try reduce(state, .move(row: "add", to: RowPath(section: 0, row: 0)), definition) }
    }

    @Test func actionsAndSwitchesSetTheirItemsFields() throws {
        let (definition, state) = try definition()
        let switched = try reduce(state, .setSwitch(row: "task-b", isOn: true), definition).state
        #expect(switched.records("tasks")[1].fields["done"] == .bool(true))
        #expect(switched.revision == 1)
        let renamed = try reduce(switched, .select(row: "task-b"), definition).state
        #expect(renamed.records("tasks")[1].fields["title"] == .string("B!"))
        #expect(renamed.records("tasks").map(\.id) == ids(state))
    }

    /// `onEdit: {"set": "item.FIELD"}`, as a switch's, in a `forEach` row and on an item
    /// screen: the edited value goes into that field of the row's or the screen's item.
    @Test func anEditStoresIntoAFieldOfItsItem() throws {
        let people = """
            {"id": "people", "title": "People",
             "state": {"people": {"type": "list", "item": {"name": "string", "age": "number"}, "default": [
               {"id": "ann", "name": "Ann", "age": 30}, {"id": "bo", "name": "Bo", "age": 41}]}},
             "sections": [{"id": "list", "rows": [
               {"id": "name-{{item.id}}", "kind": "textField", "forEach": "people", "title": "Name", "text": "{{item.name}}", "onEdit": {"set": "item.name"}}]}]}
            """
        let person = """
            {"id": "person", "title": "{{item.name}}", "item": {"list": "people"},
             "sections": [{"id": "person", "rows": [
               {"id": "age", "kind": "stepper", "title": "Age", "value": "item.age", "min": 0, "max": 130, "onEdit": {"set": "item.age"}}]}]}
            """
        let catalogue = try Catalogue.load([
            DefinitionFile(name: "people.json", bytes: Array(people.utf8)), DefinitionFile(name: "person.json", bytes: Array(person.utf8)),
        ])
        let list = try #require(catalogue.screen(id: "people"))
        let detail = try #require(catalogue.screen(id: "person"))
        let renamed = try reduce(catalogue.initialState, .edit(row: "name-bo", value: .string("Bob")), list).state
        #expect(renamed.records("people").map { $0.fields["name"] } == [.string("Ann"), .string("Bob")] && renamed.revision == 1)
        #expect(render(list, renamed).sections[0].rows[1].content.inputValue == .string("Bob"))
        let aged = try reduce(renamed, .edit(row: "age", value: .number(31)), detail, item: "ann").state
        #expect(aged.records("people").map { $0.fields["age"] } == [.number(31), .number(41)] && aged.revision == 2)
        #expect(throws: EventError.self) { try reduce(renamed, .edit(row: "age", value: .number(131)), detail, item: "ann") }
        let problems = definitionProblems([
            "a.json":
                #"{"id": "a", "title": "A", "state": {"people": {"type": "list", "item": {"name": "string"}, "default": []}}, "sections": [{"id": "s", "rows": ["#
                + #"{"id": "n-{{item.id}}", "kind": "stepper", "forEach": "people", "title": "N", "value": "1", "min": 0, "max": 9, "onEdit": {"set": "item.name"}},"#
                + #"{"id": "i-{{item.id}}", "kind": "textField", "forEach": "people", "title": "I", "text": "{{item.id}}", "onEdit": {"set": "item.id"}},"#
                + #"{"id": "x", "kind": "textField", "title": "X", "text": "", "onEdit": {"set": "item.name"}}]}]}"#
        ])
        #expect(
            problems.map(\.message).sorted() == [
                #""item.name" is a field of an item: only a row with "forEach", or a screen with "item", has one"#,
                "an item's id never changes; it is its identity",
                #"the items of "people" have no number field "name"; a stepper stores a number"#,
            ])
    }

    /// A move without the client's copy reads the copy at the state, as the item screen
    /// shows it: a section shown for the screen's item holds the rows moved.
    @Test func aMoveOnAnItemScreenReadsTheScreensItem() throws {
        let board = """
            {"id": "board", "title": "{{item.name}}", "item": {"list": "boards"},
             "state": {"boards": {"type": "list", "item": {"name": "string", "open": "bool"}, "default": [{"id": "b1", "name": "One", "open": true}]},
               "cards": {"type": "list", "item": {"title": "string"}, "default": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}, {"id": "c", "title": "C"}]}},
             "sections": [{"id": "cards", "visibleWhen": "item.open", "rows": [
               {"id": "card-{{item.id}}", "kind": "basic", "forEach": "cards", "title": "{{item.title}}", "onMove": {"move": "cards"}}]}]}
            """
        let catalogue = try Catalogue.load([DefinitionFile(name: "board.json", bytes: Array(board.utf8))])
        let definition = try #require(catalogue.screen(id: "board"))
        let moved = try reduce(catalogue.initialState, .move(row: "card-c", to: RowPath(section: 0, row: 0)), definition, item: "b1").state
        #expect(moved.records("cards").map(\.id) == ["c", "a", "b"])
    }

    /// An event decided again with its call's answer after another commit gives the items it
    /// appends the ids of the revision the call was made at, the ones the backend was sent.
    @Test func appendedIDsCountFromTheRevisionGiven() throws {
        let (definition, initial) = try definition()
        var state = initial
        state.values["draft"] = .scalar(.string("Milk"))
        let atCall = try reduction(of: .select(row: "add"), on: state, definition, itemIDSeed: "session-1").state.records("tasks")
        state.revision = 5
        let later = try reduction(of: .select(row: "add"), on: state, definition, itemIDSeed: "session-1").state.records("tasks")
        #expect(later.map(\.id) != atCall.map(\.id))
        let answered = try reduction(of: .select(row: "add"), on: state, definition, itemIDSeed: "session-1", itemIDRevision: 0)
        #expect(answered.state.records("tasks").map(\.id) == atCall.map(\.id))
    }

    @Test func appendGivesIdsThatARetryGivesAgain() throws {
        let (definition, initial) = try definition()
        var state = initial
        state.values["draft"] = .scalar(.string("Milk"))
        let added = try reduction(of: .select(row: "add"), on: state, definition, itemIDSeed: "session-1").state
        let records = added.records("tasks")
        #expect(records.count == 7 && added.revision == 1)
        #expect(records.first?.fields == ["title": .string("first"), "done": .bool(true)])
        #expect(records.last?.fields == ["title": .string("Milk"), "done": .bool(false)])
        for record in [records[0], records[6]] {
            #expect(record.id.count == 16 && record.id.utf8.allSatisfy { (97...122).contains($0) || (50...55).contains($0) }, "\(record.id)")
        }
        #expect(records[0].id != records[6].id)
        // The same event on the same state gives the same ids; another session, others.
        #expect(try reduction(of: .select(row: "add"), on: state, definition, itemIDSeed: "session-1").state == added)
        #expect(try reduction(of: .select(row: "add"), on: state, definition, itemIDSeed: "session-2").state.records("tasks")[0].id != records[0].id)
        // A given id the list holds is refused; an empty one is replaced by a generated one.
        state.values["draft"] = .scalar(.string("c"))
        #expect(throws: EventError.duplicateItem(list: "tasks", id: "c")) { try reduce(state, .select(row: "add-fixed"), definition) }
        state.values["draft"] = .scalar(.string("z"))
        #expect(try reduce(state, .select(row: "add-fixed"), definition).state.records("tasks").last?.id == "z")
        state.values["draft"] = .scalar(.string(""))
        #expect(try reduce(state, .select(row: "add-fixed"), definition).state.records("tasks").last?.id.count == 16)
        // An id no item screen or row could name is refused: too long, or fusing with what
        // a row id puts around it.
        for (draft, reason) in [
            (String(repeating: "x", count: 1025), "the id is longer than 1024 bytes"), ("\u{301}x", "fuses with its neighbour"),
        ] {
            state.values["draft"] = .scalar(.string(draft))
            #expect {
                try reduce(state, .select(row: "add-fixed"), definition)
            } throws: { error in
                guard case EventError.invalidItemID(let list, let id, let why)? = error as? EventError else { return false }
                return list == "tasks" && id == draft && why.contains(reason)
            }
        }
        state.values["draft"] = .scalar(.string(String(repeating: "x", count: 1024)))
        #expect(try reduce(state, .select(row: "add-fixed"), definition).state.records("tasks").last?.id.utf8.count == 1024)
    }

    @Test(arguments: [
        (
            #"{"append": {"to": "tasks", "item": {"title": "x"}}}"#, "$.sections[0].rows[0].onSelect.append.item",
            #"the new item of "tasks" needs every field but "id"; give "done""#
        ),
        (
            #"{"append": {"to": "tasks", "item": {"title": "x", "done": true, "size": 1}}}"#, "$.sections[0].rows[0].onSelect.append.item.size",
            #"the items of "tasks" have no field "size"; they have: id, done, title"#
        ),
        (
            #"{"append": {"to": "draft", "item": {}}}"#, "$.sections[0].rows[0].onSelect.append.to",
            #""draft" is not a list state key; declare it under "state" as a list of records"#
        ),
        (
            #"{"append": {"to": "tasks", "item": {"title": "x", "done": true}, "at": "middle"}}"#, "$.sections[0].rows[0].onSelect.append.at",
            #""at" is "end" (the default) or "start""#
        ),
        (
            #"{"set": {"item.done": true}}"#, "$.sections[0].rows[0].onSelect.set.item.done",
            #""item.done" sets a field of the row's item, so it only works in a row with "forEach""#
        ),
    ])
    func listActionProblemsNameWhatToFix(action: String, path: String, message: String) {
        let json = """
            {"id": "p", "title": "P", "state": {"draft": "", "tasks": {"type": "list", "item": {"title": "string", "done": "bool"}, "default": []}},
             "sections": [{"id": "s", "rows": [{"id": "x", "kind": "basic", "title": "T", "onSelect": \(action)}]}]}
            """
        let problems = definitionProblems(["p.json": json])
        #expect(problems.map(\.path) == [path])
        #expect(problems.map(\.message) == [message])
    }

    @Test(arguments: [
        (
            #""onMove": {"move": "tasks"}"#, false, "$.sections[0].rows[0].onMove",
            #"only a row with "forEach" can be moved: a drag reorders the items of its list"#
        ),
        (
            #""forEach": "tasks", "onMove": {"move": "tasks"}, "sort": {"by": "item.title"}"#, true, "$.sections[0].rows[0].onMove",
            #"this row's items are ordered by its "sort", so a drag cannot reorder them; remove "sort" or "onMove""#
        ),
        (
            #""forEach": "tasks", "onMove": {"remove": "tasks"}"#, true, "$.sections[0].rows[0].onMove",
            #"onMove is {"move": LIST}: a drag of the row reorders the items of LIST, the list the row repeats over"#
        ),
        (
            #""trailingActions": [{"id": "a", "title": "A", "onAction": {"toggle": "flag"}}], "leadingActions": [{"id": "a", "title": "B", "onAction": {"toggle": "flag"}}]"#,
            false, "$.sections[0].rows[0].trailingActions[0].id",
            #"the row already has a swipe action "a"; ids are unique across leadingActions and trailingActions"#
        ),
        (#""trailingActions": [{"id": "a", "title": "A"}]"#, false, "$.sections[0].rows[0].trailingActions[0]", #"missing required field "onAction""#),
    ])
    func rowListMemberProblemsNameWhatToFix(members: String, repeated: Bool, path: String, message: String) {
        let json = """
            {"id": "p", "title": "P", "state": {"flag": false, "tasks": {"type": "list", "item": {"title": "string"}, "default": []}},
             "sections": [{"id": "s", "rows": [{"id": "\(repeated ? "x-{{item.id}}" : "x")", "kind": "basic", "title": "T", \(members)}]}]}
            """
        let problems = definitionProblems(["p.json": json])
        #expect(problems.map(\.path) == [path])
        #expect(problems.map(\.message) == [message])
    }
}
