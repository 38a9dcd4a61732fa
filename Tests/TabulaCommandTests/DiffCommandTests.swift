import Foundation
import Testing

@Suite struct DiffCommandTests {
    let directory: URL

    init() throws {
        directory = try makeTemporaryDirectory()
    }

    func write(_ name: String, _ json: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(json.utf8).write(to: url)
        return url.path
    }

    @Test func printsTheChangeSet() throws {
        let old = try write(
            "old.json",
            #"{"id":"s","title":"T","sections":[{"id":"a","rows":[{"id":"1","kind":"basic","title":"One"},{"id":"2","kind":"basic","title":"Two"}]}]}"#)
        let new = try write(
            "new.json", #"{"id":"s","title":"T","sections":[{"id":"a","rows":[{"id":"2","kind":"basic","title":"Two"},{"id":"3","kind":"empty"}]}]}"#)
        let result = try runTabula(["diff", old, new])
        #expect(result.status == 0)
        #expect(
            result.standardOutput
                == #"{"rows":{"deleted":[{"row":0,"section":0}],"inserted":[{"model":{"deletable":false,"enabled":true,"id":"3","kind":"empty","movable":false,"selectable":false},"row":1,"section":0}],"moved":[],"updated":[]},"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}"#
                + "\n")
        try FileManager.default.removeItem(at: directory)
    }

    @Test func prettyOutputIsTheSameJSON() throws {
        let old = try write("old.json", #"{"id":"s","title":"T","sections":[]}"#)
        let result = try runTabula(["diff", old, old, "--pretty"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("{\n  \"rows\": {\n    \"deleted\": [],"))
        try FileManager.default.removeItem(at: directory)
    }

    @Test func rejectsDuplicateIDsWithPath() throws {
        let good = try write("good.json", #"{"id":"s","title":"T","sections":[]}"#)
        let bad = try write("bad.json", #"{"id":"s","title":"T","sections":[{"id":"a","rows":[]},{"id":"a","rows":[]}]}"#)
        let result = try runTabula(["diff", good, bad])
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains("bad.json: not a valid screen: $.sections[1].id: section id \"a\" is used more than once"))
        try FileManager.default.removeItem(at: directory)
    }

    @Test func rejectsUnreadableAndMalformedFiles() throws {
        let good = try write("good.json", #"{"id":"s","title":"T","sections":[]}"#)
        let missing = try runTabula(["diff", directory.appendingPathComponent("nope.json").path, good])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("nope.json: cannot read: No such file or directory"))
        let truncated = try write("truncated.json", #"{"id":"s","title""#)
        let malformed = try runTabula(["diff", good, truncated])
        #expect(malformed.status == 1)
        #expect(malformed.standardError.contains("truncated.json: not a valid screen: $: not valid JSON: the document ends too early"))
        try FileManager.default.removeItem(at: directory)
    }
}
