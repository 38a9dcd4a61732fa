import PropertyBased
import TabulaCore
import TabulaSamples
import Testing

/// The quick reader of flat objects must read what it reads exactly as JSONParser does, and
/// leave everything else to it.
@Suite struct FlatJSONObjectTests {
    /// The members JSONParser finds, in written order; `nil` when it refuses the body or
    /// the body is not an object.
    static func parsed(_ text: String) -> [(key: String, value: JSONValue)]? {
        guard case .object(let object)? = try? JSONParser().parse(text) else { return nil }
        return object.pairs
    }

    static func same(_ a: [(key: String, value: JSONValue)]?, _ b: [(key: String, value: JSONValue)]?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    @Test(arguments: [
        #"{"row":"bluetooth","isOn":true}"#,
        #" { "row" : "wifi" , "isOn" : false , "revision" : 12 } "#,
        "{\n\t\"eventId\":\"e-1\",\r\n\"revision\":0}\n",
        "{}",
        " {  } ",
        #"{"a":"","b":"x y ~!#$%&'()*+,-./:;<=>?@[]^_`{|}"}"#,
        #"{"n":999999999999999}"#,
    ])
    func readsFlatObjectsAsTheParserDoes(_ text: String) throws {
        let members = try #require(FlatJSONObject.members(of: Array(text.utf8)))
        #expect(Self.same(members, Self.parsed(text)))
    }

    @Test(arguments: [
        "",
        "   ",
        "[]",
        "\"row\"",
        "true",
        "null",
        #"{"row":"a\"b"}"#,
        #"{"row":"caf\u00e9"}"#,
        #"{"row":"café"}"#,
        #"{"indexPath":{"section":0,"row":1}}"#,
        #"{"list":[1]}"#,
        #"{"v":null}"#,
        #"{"v":-1}"#,
        #"{"v":1.5}"#,
        #"{"v":1e3}"#,
        #"{"v":1E3}"#,
        #"{"v":01}"#,
        #"{"v":1234567890123456}"#,
        #"{"a":1,"a":2}"#,
        #"{"a":1,}"#,
        #"{"a":1"#,
        #"{"a" 1}"#,
        #"{"a":tru}"#,
        #"{"a":truex}"#,
        #"{"a":1}x"#,
        #"{"a":1}{}"#,
        #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}"#,
        "{\"a\":\"tab\there\"}",
    ])
    func leavesEverythingElseToTheParser(_ text: String) {
        #expect(FlatJSONObject.members(of: Array(text.utf8)) == nil)
    }

    /// Random bodies made of the pieces where a quick reader could go wrong: whatever it
    /// reads, JSONParser reads the same.
    @Test func agreesWithTheParserOnRandomBodies() async {
        let pieces = [
            "{", "}", ",", ":", " ", "\n", "\"", "\"a\"", "\"row\"", "\"isOn\"", "\"a\"", "true", "false", "tru", "null",
            "0", "7", "01", "-1", "1.5", "2e3", "123456789012345", "1234567890123456", "\\", "é", "[", "]", "\t", "x",
        ]
        await propertyCheck(count: 400, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SplitMix64(seed: seed)
            for _ in 0..<50 {
                var text = "{"
                for _ in 0..<Int.random(in: 0...12, using: &random) { text += pieces.randomElement(using: &random) ?? "" }
                if Bool.random(using: &random) { text += "}" }
                guard let members = FlatJSONObject.members(of: Array(text.utf8)) else { continue }
                #expect(Self.same(members, Self.parsed(text)), "\(text)")
            }
        }
    }

    /// Random well-formed flat objects, which it must read, and read right.
    @Test func readsRandomWellFormedFlatObjects() async {
        let keys = ["row", "isOn", "revision", "eventId", "a", "", "k k"]
        let values = ["\"bluetooth\"", "\"\"", "true", "false", "0", "42", "999999999999999"]
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SplitMix64(seed: seed)
            let chosen = keys.shuffled(using: &random).prefix(Int.random(in: 0...FlatJSONObject.maxMembers, using: &random))
            let members = chosen.map { "\"\($0)\"" + (Bool.random(using: &random) ? " : " : ":") + (values.randomElement(using: &random) ?? "0") }
            let text = "{" + members.joined(separator: Bool.random(using: &random) ? ", " : ",") + "}"
            let read = FlatJSONObject.members(of: Array(text.utf8))
            #expect(read != nil, "\(text)")
            #expect(Self.same(read, Self.parsed(text)), "\(text)")
        }
    }
}
