import TabulaSamples
import Testing

@testable import TabulaCore

/// The diff's id table answers exactly like a `[String: Int]` of the same ids.
@Suite struct ASCIIIDTableTests {
    /// Unique ASCII ids of 0 to 40 bytes: the lengths cover the whole-word and tail paths of the hash.
    static func ids(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        var seen = Set<String>()
        var ids: [String] = []
        while ids.count < count {
            let length = Int.random(in: 0...40, using: &random)
            let id = String((0..<length).map { _ in Character(Unicode.Scalar(UInt8.random(in: 32...126, using: &random))) })
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    @Test(arguments: [0, 1, 7, 100, 5_000])
    func positionsMatchADictionary(count: Int) throws {
        let ids = Self.ids(count: count, seed: UInt64(count))
        let table = try #require(ASCIIIDTable(ids))
        for (position, id) in ids.enumerated() {
            #expect(table.position(of: id, in: ids) == .found(position))
        }
        let known = Set(ids)
        for probe in Self.ids(count: 2_000, seed: 99) where !known.contains(probe) {
            #expect(table.position(of: probe, in: ids) == .absent)
        }
    }

    @Test func aRepeatedIDGivesNoTable() {
        #expect(ASCIIIDTable(["a", "b", "a"]) == nil)
        #expect(ASCIIIDTable(["", "x", ""]) == nil)
    }

    @Test func nonASCIIIDsAreLeftToTheDictionary() throws {
        #expect(ASCIIIDTable(["a", "café"]) == nil)
        let ids = ["cafe", "row-1"]
        let table = try #require(ASCIIIDTable(ids))
        #expect(table.position(of: "café", in: ids) == .notASCII)
        #expect(table.position(of: "row-1", in: ids) == .found(1))
    }
}
