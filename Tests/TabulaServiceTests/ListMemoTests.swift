import TabulaCore
import Testing

@testable import TabulaService

/// The service remembers what it computed from state lists by their storage: whatever it
/// remembers, a state encodes and measures as the core encodes and measures it.
@Suite struct ListMemoTests {
    /// A memo writes a list from remembered bytes only while the list keeps the storage it
    /// remembers: a list changed in any way (a record edited in place, one removed, another
    /// key's list) is encoded again, and every state encodes as without the memo.
    @Test func rememberedListsAreReusedOnlyForTheSameStorage() throws {
        let base = try APITestServer.fixtures().initialState
        var edited = base
        if case .list(var records) = edited.values["networks"] {
            records[0].fields["name"] = .string("Renamed \u{1}")
            edited.values["networks"] = .list(records)
        }
        var removed = base
        removed.values["networks"] = .list(base.records("networks").dropLast())
        var switched = base
        switched.values["wifi"] = .scalar(.bool(false))
        var memo = ListMemo()
        for state in [base, edited, switched, edited, removed, base, base] {
            #expect(state.valuesBytes(reusing: &memo) == state.valuesBytes)
        }
        #expect(edited.valuesBytes != base.valuesBytes && removed.valuesBytes != base.valuesBytes)
    }

    /// The state limits measure remembered lists by their remembered size, and a list that
    /// grew past the limit in a record edited in place (same count, new storage) is measured
    /// anew: the memo answers as a fresh measure does, state after state.
    @Test func rememberedSizesFollowTheLists() throws {
        let base = try APITestServer.fixtures().initialState
        let limits = StateLimits(maxStateBytes: StateLimits.measuredBytes(base) + 100, maxListLength: 10)
        var grown = base
        if case .list(var records) = grown.values["networks"] {
            records[0].fields["name"] = .string(String(repeating: "x", count: 200))
            grown.values["networks"] = .list(records)
        }
        var memo = ListMemo()
        for state in [base, grown, base, grown, grown] {
            #expect(limits.violation(of: state, reusing: &memo) == limits.violation(of: state))
            _ = state.valuesBytes(reusing: &memo)
        }
        #expect(limits.violation(of: base) == nil && limits.violation(of: grown) != nil)
    }

    /// A list's columns are built once its storage was searched in enough events (however
    /// many searches each made), then given again for it; a list edited in place (new
    /// storage) starts over, and every column given holds what the core computes of the list
    /// it is given for.
    @Test func columnsAreGivenForTheStorageTheyWereBuiltFrom() throws {
        let names = (0..<300).map { Record(id: "n\($0)", fields: ["name": .string("Name \($0)")]) }
        var edited = names
        edited[7].fields["name"] = .string("Renamed")
        var memo = ListMemo()
        let needed = UInt64(ListMemo.searchesBeforeColumns)
        for event in 1..<needed {
            for _ in 0..<3 { #expect(memo.column("name", .string, ofList: "names", names, event: event) == nil, "event \(event)") }
        }
        let built = memo.column("name", .string, ofList: "names", names, event: needed)
        let column = try #require(built)
        #expect(memo.column("name", .string, ofList: "names", names, event: needed + 1) == column, "the same storage, the same column")
        #expect(column.values == ItemColumn("name", .string, of: names).values)
        var again: ItemColumn?
        for event in (needed + 2)...(2 * needed + 1) {
            again = memo.column("name", .string, ofList: "names", edited, event: event)
            if event < 2 * needed + 1 { #expect(again == nil, "a list edited in place is another storage") }
        }
        #expect(again?.values == ItemColumn("name", .string, of: edited).values)
    }
}
