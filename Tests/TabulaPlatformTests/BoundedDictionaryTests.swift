import TabulaPlatform
import Testing

@Suite struct BoundedDictionaryTests {
    /// Past its count, an insertion drops an eighth of the others; past its bytes, as many
    /// as it takes, and it says how many; the bytes follow every insertion, replacement and
    /// removal.
    @Test func insertionsKeepBothBoundsAndCountTheirBytes() {
        var entries = BoundedDictionary<Int, String>(maxCount: 16, maxBytes: 1_000)
        for key in 0..<16 { entries.insert("\(key)", bytes: 10, forKey: key) }
        #expect(entries.count == 16 && entries.bytes == 160)
        #expect(entries.insert("new", bytes: 10, forKey: 100) == 2, "two dropped: an eighth of 16")
        #expect(entries.count == 15 && entries.bytes == 150 && entries[100] == "new")
        #expect(entries.insert("replaced", bytes: 30, forKey: 100) == 0)
        #expect(entries.count == 15 && entries.bytes == 170 && entries[100] == "replaced")
        let dropped = entries.insert("large", bytes: 900, forKey: 200)
        #expect(entries.bytes <= 1_000 && entries[200] == "large" && entries.count == 16 - dropped)
        entries.removeValue(forKey: 200)
        #expect(entries[200] == nil && entries.bytes <= 100)
        entries.insert("larger than all", bytes: 5_000, forKey: 300)
        #expect(entries.count == 1 && entries.bytes == 5_000 && entries[300] == "larger than all")
    }
}
