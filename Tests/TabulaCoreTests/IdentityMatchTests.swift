import Testing

@testable import TabulaCore

/// Ids match the way `String` compares them, whichever path the match takes.
@Suite struct IdentityMatchTests {
    /// U+212A KELVIN SIGN is canonically equivalent to "K", so `String` says they are equal.
    @Test func aNonASCIIIDMatchesTheASCIIIDItEquals() {
        let kelvin = "\u{212A}"
        #expect(kelvin == "K")
        // Found by the table's fallback (not in the likely place) and in the likely place.
        let moved = IdentityMatch(old: ["a", "b", "K"], new: [kelvin, "a", "b"])
        #expect(moved.newToOld == [2, 0, 1])
        let inPlace = IdentityMatch(old: ["K", "a"], new: [kelvin, "a"])
        #expect(inPlace.newToOld == [0, 1])
    }

    @Test func itemsOutOfOrderInsertedAndDeletedAreMatched() {
        let match = IdentityMatch(old: ["a", "b", "c", "d", "e"], new: ["x", "b", "a", "d", "y", "c"])
        #expect(match.newToOld == [-1, 1, 0, 3, -1, 2])
        #expect(match.oldToNew == [2, 1, 5, 3, -1])
    }

    @Test func aRepeatedNewIDFallsBackToOccurrences() {
        let match = IdentityMatch(old: ["a", "b"], new: ["a", "a", "b"])
        #expect(match.newToOld == [0, -1, 1])
        #expect(match.oldToNew == [0, 2])
    }
}
