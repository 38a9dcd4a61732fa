import TabulaCore
import TabulaSamples
import Testing

@Suite struct JSONWriterTests {
    @Test func escapesWhatJSONRequires() {
        let value = JSONValue.string("q\"b\\n\nt\tc\u{1}é/")
        #expect(value.canonicalText == #""q\"b\\n\nt\tc\u0001é/""#)
    }

    @Test func writesNumbersCompactly() {
        #expect(JSONValue.number(44).canonicalText == "44")
        #expect(JSONValue.number(-3).canonicalText == "-3")
        #expect(JSONValue.number(-0.0).canonicalText == "0")
        #expect(JSONValue.number(44.5).canonicalText == "44.5")
        #expect(JSONValue.number(0.1).canonicalText == "0.1")
        #expect(JSONValue.number(1e300).canonicalText == "1e+300")
        #expect(JSONValue.number(9_007_199_254_740_991).canonicalText == "9007199254740991")
    }

    @Test func writesIntegersToTheirExtremes() {
        var writer = JSONWriter(reservingCapacity: 1)
        writer.beginArray()
        for value in [0, 7, -7, 10, 100, 1_000_000_007, Int.max, Int.min, Int.min + 1] { writer.int(value) }
        writer.endArray()
        #expect(
            String(decoding: writer.bytes, as: UTF8.self)
                == "[0,7,-7,10,100,1000000007,9223372036854775807,-9223372036854775808,-9223372036854775807]")
    }

    /// Strings are scanned eight bytes at a time: a byte to escape at any place of a word,
    /// next to multi-byte characters or in the tail, is escaped as one byte at a time would be.
    @Test func escapesAtEveryPlaceOfAWord() {
        func escapedOneByOne(_ text: String) -> String {
            var result: [UInt8] = [UInt8(ascii: "\"")]
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): result += [UInt8(ascii: "\\"), byte]
                case 0x0A: result += Array(#"\n"#.utf8)
                case 0x0D: result += Array(#"\r"#.utf8)
                case 0x09: result += Array(#"\t"#.utf8)
                case 0x08: result += Array(#"\b"#.utf8)
                case 0x0C: result += Array(#"\f"#.utf8)
                case ..<0x20: result += Array(("\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)).utf8)
                default: result.append(byte)
                }
            }
            return String(decoding: result + [UInt8(ascii: "\"")], as: UTF8.self)
        }
        var random = SplitMix64(seed: 5)
        let pieces = ["a", "\"", "\\", "\n", "\u{1}", "\u{1F}", " ", "~", "\u{7F}", "é", "😀", "!", "#", "]"]
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...40, using: &random) { text += pieces.randomElement(using: &random) ?? "" }
            #expect(JSONValue.string(text).canonicalText == escapedOneByOne(text), "\(Array(text.utf8))")
        }
    }

    /// Keys sort by their UTF-8 bytes, not by `String`'s `<` (which normalizes first): a
    /// decomposed "é" (e + U+0301) sorts before "f", the composed one after it; a prefix
    /// sorts first. Random strings of ASCII, non-ASCII and long runs agree with the views'
    /// own byte comparison.
    @Test func keysSortByTheirUTF8Bytes() {
        #expect("cafe\u{301}".utf8Precedes("caff") && "caff".utf8Precedes("caf\u{E9}"))
        #expect("ab".utf8Precedes("abc") && !"abc".utf8Precedes("ab") && !"ab".utf8Precedes("ab") && "".utf8Precedes("a"))
        var random = SplitMix64(seed: 11)
        let pieces = ["a", "b", "Z", "é", "e\u{301}", "~", "😀", "0", String(repeating: "x", count: 20)]
        func sample() -> String { (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined() }
        for _ in 0..<2_000 {
            let left = sample(), right = sample()
            #expect(left.utf8Precedes(right) == left.utf8.lexicographicallyPrecedes(right.utf8), "\(left) vs \(right)")
        }
    }

    /// The writer's memory starts small and doubles: whatever it grows through, the bytes
    /// are those a writer with room for everything writes.
    @Test func growsThroughEveryKindOfWrite() {
        func write(into writer: inout JSONWriter, _ round: Int) {
            writer.beginObject()
            writer.key("key\(round)"); writer.string(String(repeating: "é\"\\\n", count: round % 7))
            writer.key("list"); writer.array(0..<(round % 5)) { $0.number(Double($1) + 0.5) }
            writer.list(#""n":[]"#, Array(0..<(round % 3))) { $0.int($1 * 1_000_003) }
            writer.key("raw"); writer.rawValue(Array(#"{"x":[true,null]}"#.utf8))
            writer.endObject()
        }
        var small = JSONWriter(reservingCapacity: 1)
        var large = JSONWriter(reservingCapacity: 1 << 16)
        small.beginArray(); large.beginArray()
        for round in 0..<200 {
            write(into: &small, round)
            write(into: &large, round)
        }
        small.endArray(); large.endArray()
        #expect(small.bytes == large.bytes)
        #expect(small.bytes.count > 10_000)
        #expect((try? JSONParser().parse(small.bytes)) != nil)
    }

    @Test func sortsKeysByBytes() {
        let value: JSONValue = ["b": 1, "B": 2, "a": ["z": true, "y": nil], "é": "x"]
        #expect(value.canonicalText == #"{"B":2,"a":{"y":null,"z":true},"b":1,"é":"x"}"#)
    }

    @Test func roundTripsThroughTheParser() throws {
        let value: JSONValue = ["list": [1, 2.25, "three", false, nil, [:], []], "text": "Corner Café \u{1F600}"]
        #expect(try JSONParser().parse(value.canonicalBytes) == value)
    }

    @Test func placesCommasBetweenSiblingsAtEveryDepth() {
        var writer = JSONWriter()
        writer.beginArray()
        writer.beginArray(); writer.endArray()
        writer.beginObject(); writer.endObject()
        writer.beginObject()
        writer.key("a"); writer.beginArray(); writer.int(1); writer.beginObject(); writer.endObject(); writer.endArray()
        writer.key(String("b")); writer.null()
        writer.endObject()
        writer.string("s")
        writer.endArray()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"[[],{},{"a":[1,{}],"b":null},"s"]"#)
    }

    @Test func writesKeysSpelledInSourceLikeAnyOther() {
        var literal = JSONWriter()
        literal.beginObject(); literal.key("id"); literal.int(1); literal.key("x"); literal.bool(true); literal.endObject()
        var dynamic = JSONWriter()
        dynamic.beginObject(); dynamic.key(String("id")); dynamic.int(1); dynamic.key(String("x")); dynamic.bool(true); dynamic.endObject()
        #expect(literal.bytes == dynamic.bytes)
        #expect(String(decoding: literal.bytes, as: UTF8.self) == #"{"id":1,"x":true}"#)
    }

    @Test func writesListsEmptyOrFullBetweenOthersWithTheirCommas() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.list(#""a":[]"#, [Int]()) { $0.int($1) }
        writer.key("b"); writer.int(1)
        writer.list(#""c":[]"#, [1, 2]) { $0.int($1) }
        writer.list(#""e":[]"#, ["x"]) { $0.string($1) }
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":[],"b":1,"c":[1,2],"e":["x"]}"#)
    }

    /// Empty lists are written as whole literals: the bytes must be those of the general path.
    @Test func encodesEmptyAndFullListsOfAChangeSetAlike() throws {
        var changes = ChangeSet()
        changes.sections.deleted = [1]
        changes.rows.moved = [RowMove(from: RowPath(section: 0, row: 1), to: RowPath(section: 0, row: 0))]
        #expect(
            String(decoding: changes.jsonBytes, as: UTF8.self)
                == #"{"rows":{"deleted":[],"inserted":[],"moved":[{"from":{"row":1,"section":0},"to":{"row":0,"section":0}}],"updated":[]},"sections":{"deleted":[1],"inserted":[],"moved":[],"updated":[]}}"#
        )
        #expect(try ChangeSet(jsonBytes: changes.jsonBytes) == changes)
    }

    @Test func prettyPrintsForPeople() {
        let value: JSONValue = ["b": [1, 2], "a": [:]]
        #expect(value.prettyText() == "{\n  \"a\": {},\n  \"b\": [\n    1,\n    2\n  ]\n}")
    }
}
