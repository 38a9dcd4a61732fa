import TabulaCore
import TabulaService
import Testing

/// A store's past states: every kept revision reads back as the state committed at it,
/// whatever each revision changed, and the revisions around the kept ones are told apart.
@Suite(.serialized) struct StoreHistoryTests {
    /// A deterministic walk of states over the settings screen's keys: each step changes one
    /// key, several, a list, or none (a revision whose values equal the one before).
    static func walk(from initial: SessionState, steps: Int, seed: UInt64) -> [SessionState] {
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let networks = initial.records("networks")
        let appearances = ["light", "dark", "automatic"]
        var states = [initial]
        var state = initial
        for _ in 0..<steps {
            switch next(5) {
            case 0:
                state.values["wifi"] = .scalar(.bool(next(2) == 0))
            case 1:
                state.values["appearance"] = .scalar(.string(appearances[next(3)]))
            case 2:
                state.values["bluetooth"] = .scalar(.bool(next(2) == 0))
                state.values["appearance"] = .scalar(.string(appearances[next(3)]))
                state.values["wifi"] = .scalar(.bool(next(2) == 0))
            case 3:
                state.values["networks"] = .list(Array(networks.prefix(next(networks.count + 1))))
            default:
                break
            }
            state.revision += 1
            states.append(state)
        }
        return states
    }

    @Test(arguments: StoreKind.allCases)
    func pastStatesReadBackAsCommitted(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        factory.settings.keepRevisions = 7
        let catalogue = try APITestServer.fixtures()
        let store = try factory.open(catalogue)
        defer { store.close() }
        let token = "HISTORY" + String(repeating: "h", count: 25)
        try wait { store.createSession(NewSession(token: token, id: SessionID.make(), subject: nil, state: catalogue.initialState), completion: $0) }
        let states = Self.walk(from: catalogue.initialState, steps: 40, seed: 8)
        for (index, state) in states.enumerated().dropFirst() {
            let committed = try wait { completion in
                store.commit(
                    session: .token(token),
                    SessionCommit(
                        expectedRevision: state.revision - 1, change: (state, .patch(changedKeys: [])),
                        event: EventRecord(eventID: nil, kind: "switch", payload: Array("{}".utf8), revision: state.revision, time: 0),
                        answer: nil), completion: completion)
            }
            #expect(committed == .committed)
            let newest = index
            let oldest = max(0, newest - 7)
            let lookups = try (oldest - 1...newest + 1).map { revision in
                try #require(try wait { completion in store.read(session: .token(token), SessionRead(revision: revision), completion: completion) }).past
            }
            let expected =
                [.tooOld(oldestKept: oldest)] + (oldest...newest).map { RevisionLookup.found(states[$0]) }
                + [.future(current: newest)]
            // Before revision 0 there is nothing to keep; how a store words that is its own.
            let compared = oldest == 0 ? 1 : 0
            #expect(Array(lookups.dropFirst(compared)) == Array(expected.dropFirst(compared)), "after revision \(newest)")
        }
    }

    /// The memory store keeps keys no schema declares; undoing a revision that added or
    /// removed one restores exactly the keys there were.
    @Test func theMemoryStoreUndoesAddedAndRemovedKeys() throws {
        var settings = StoreSettings()
        settings.keepRevisions = 4
        let store = MemorySessionStore(settings: settings)
        let token = "UNDOKEYS" + String(repeating: "u", count: 24)
        var state = SessionState(values: ["a": .scalar(.number(1))])
        var states = [state]
        try wait { store.createSession(NewSession(token: token, id: SessionID.make(), subject: nil, state: state), completion: $0) }
        let edits: [(inout SessionState) -> Void] = [
            { $0.values["b"] = .scalar(.string("added")) },
            { $0.values["a"] = nil },
            { $0.values = ["c": .scalar(.bool(true)), "d": .list([Record(id: "x")])] },
            { _ in },
            { $0.values["d"] = nil },
        ]
        for edit in edits {
            edit(&state)
            state.revision += 1
            states.append(state)
            let next = state
            let committed = try wait { completion in
                store.commit(
                    session: .token(token),
                    SessionCommit(
                        expectedRevision: next.revision - 1, change: (next, .patch(changedKeys: [])),
                        event: EventRecord(eventID: nil, kind: "switch", payload: [], revision: next.revision, time: 0), answer: nil),
                    completion: completion)
            }
            #expect(committed == .committed)
        }
        let lookups = try (0...5).map { revision in
            try #require(try wait { completion in store.read(session: .token(token), SessionRead(revision: revision), completion: completion) }).past
        }
        #expect(lookups == [.tooOld(oldestKept: 1)] + states[1...5].map { RevisionLookup.found($0) })
    }
}
