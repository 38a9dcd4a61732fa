import TabulaCore
import Testing

@Suite struct JSONParserTests {
    let parser = JSONParser()

    @Test func parsesEveryValueType() throws {
        let value = try parser.parse(#" { "a": [1, -2.5, 3e2, true, false, null], "b": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00" } "#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == [1, -2.5, 300, true, false, nil])
        #expect(object["b"] == .string("x\"\\/\u{8}\u{C}\n\r\té😀"))
    }

    @Test func keepsNonASCIIText() throws {
        #expect(try parser.parse(#""Corner Café""#) == .string("Corner Café"))
    }

    @Test(arguments: [
        ("", JSONParseError.Reason.empty),
        ("   ", .empty),
        ("{\"a\": 1", .unexpectedEnd),
        ("[1, 2", .unexpectedEnd),
        ("\"abc", .unexpectedEnd),
        ("{\"a\" 1}", .unexpectedByte(UInt8(ascii: "1"))),
        ("[1,]", .unexpectedByte(UInt8(ascii: "]"))),
        ("{,}", .unexpectedByte(UInt8(ascii: ","))),
        ("tru", .unexpectedEnd),
        ("nul!", .unexpectedByte(UInt8(ascii: "!"))),
        ("01", .trailingCharacters),
        ("1.", .unexpectedEnd),
        ("-", .unexpectedEnd),
        ("-a", .invalidNumber),
        ("1e", .unexpectedEnd),
        ("1e400", .numberOutOfRange),
        ("-1e400", .numberOutOfRange),
        ("1e-400", .numberOutOfRange),
        ("-0.5e-400", .numberOutOfRange),
        ("\"a\u{1}b\"", .controlCharacterInString),
        ("\"\\x\"", .invalidEscape),
        ("\"\\u12G4\"", .invalidUnicodeEscape),
        ("\"\\ud800\"", .invalidUnicodeEscape),
        ("\"\\udc00\"", .invalidUnicodeEscape),
        ("\"\\ud800\\u0041\"", .invalidUnicodeEscape),
        ("{\"a\": 1, \"a\": 2}", .duplicateKey("a")),
        ("[] []", .trailingCharacters),
        ("NaN", .unexpectedByte(UInt8(ascii: "N"))),
    ])
    func rejectsMalformedInput(input: String, reason: JSONParseError.Reason) {
        #expect(throws: JSONParseError.self) { try parser.parse(input) }
        do {
            _ = try parser.parse(input)
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0x61, 0xC3, 0x28, 0x22]
        do {
            _ = try parser.parse(bytes)
            Issue.record("invalid UTF-8 was accepted")
        } catch {
            #expect(error.reason == .invalidUTF8)
            #expect(error.offset == 2)
        }
    }

    @Test func rejectsNULInsideAndOutsideStrings() {
        #expect(throws: JSONParseError.self) { try parser.parse([0x22, 0x00, 0x22]) }
        #expect(throws: JSONParseError.self) { try parser.parse([0x31, 0x00]) }
    }

    @Test func boundsNestingWithoutExhaustingTheStack() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        do {
            _ = try parser.parse(deep)
            Issue.record("10,000-deep nesting was accepted")
        } catch {
            #expect(error.reason == .nestingTooDeep(limit: 64))
            #expect(error.offset == 64)
        }
        let shallow = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try parser.parse(shallow) }
    }

    @Test func reportsLineAndColumn() {
        do {
            _ = try parser.parse("{\n  \"a\": 1,\n  \"b\": ?\n}")
            Issue.record("accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 8)
            #expect(error.description == "unexpected character '?' at line 3, column 8")
        }
    }

    @Test func objectsCompareAndHashByMembersInAnyOrder() throws {
        let small = try parser.parse(#"{"a": 1, "b": [true], "c": {"d": null}}"#)
        let reordered = try parser.parse(#"{"c": {"d": null}, "a": 1, "b": [true]}"#)
        #expect(small == reordered)
        #expect(small.hashValue == reordered.hashValue)
        #expect(try parser.parse(#"{"a": 1, "b": [true], "c": {"d": 0}}"#) != small)
        #expect(try parser.parse(#"{"a": 1, "b": [true]}"#) != small)
        // Past the linear search: the same rules with an index.
        let keys = (0..<40).map { "key\($0)" }
        let forward = "{" + keys.map { "\"\($0)\": \"\($0)\"" }.joined(separator: ",") + "}"
        let backward = "{" + keys.reversed().map { "\"\($0)\": \"\($0)\"" }.joined(separator: ",") + "}"
        let large = try parser.parse(forward)
        #expect(large == (try parser.parse(backward)))
        #expect(large.hashValue == (try parser.parse(backward)).hashValue)
        #expect(large.objectValue?.keys == keys)
        #expect(large.objectValue?["key39"] == .string("key39"))
        #expect(large.objectValue?["key40"] == nil)
        #expect(throws: JSONParseError.self) { try parser.parse(#"{"a": 1, "a": 2}"#) }
    }

    @Test(arguments: [3, 40])
    func objectMembersCanBeReplacedAndRemoved(size: Int) {
        var object = JSONObject()
        for index in 0..<size { object["k\(index)"] = .number(Double(index)) }
        object["k1"] = "one"
        #expect(object["k1"] == "one")
        #expect(object.keys.count == size)
        object["k0"] = nil
        #expect(object["k0"] == nil)
        #expect(object.keys == (1..<size).map { "k\($0)" })
        #expect(object["k2"] == .number(2))
        #expect(object.insertNew("k2", "again") == false)
        #expect(object.insertNew("k0", "back") == true)
        #expect(object.keys.last == "k0")
        #expect(object.pairs.map(\.key) == object.keys)
    }
}
