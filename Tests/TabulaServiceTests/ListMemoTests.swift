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
}
