import TabulaCore
import Testing

@testable import TabulaService

/// JSON Merge Patch and JSON Patch as their RFCs specify them, with the RFCs' own examples.
@Suite struct StatePatchTests {
    func json(_ text: String) throws -> JSONValue {
        try JSONParser().parse(Array(text.utf8))
    }

    /// RFC 7396, Appendix A: every example (target, patch, result).
    @Test(arguments: [
        (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
        (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
        (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
        (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
        (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
        (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
        (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
        (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
        (#"{"a":"foo"}"#, "null", "null"),
        (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
        (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
        (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
        (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
    ])
    func mergePatchFollowsRFC7396(target: String, patch: String, result: String) throws {
        #expect(try StatePatch.merge(json(patch)).apply(to: json(target), limits: Self.limits) == json(result))
    }

    static let limits = PatchLimits(StateLimits())

    func apply(_ patch: String, to document: String) throws -> Result<JSONValue, StatePatchError> {
        let operations = try JSONPatchOperation.document(json(patch))
        let target = try json(document)
        do throws(StatePatchError) {
            return .success(try StatePatch.operations(operations).apply(to: target, limits: Self.limits))
        } catch {
            return .failure(error)
        }
    }

    /// RFC 6902, Appendix A: the examples that succeed.
    @Test(arguments: [
        (#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux"}]"#, #"{"baz":"qux","foo":"bar"}"#),
        (#"{"foo":["bar","baz"]}"#, #"[{"op":"add","path":"/foo/1","value":"qux"}]"#, #"{"foo":["bar","qux","baz"]}"#),
        (#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"remove","path":"/baz"}]"#, #"{"foo":"bar"}"#),
        (#"{"foo":["bar","qux","baz"]}"#, #"[{"op":"remove","path":"/foo/1"}]"#, #"{"foo":["bar","baz"]}"#),
        (#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"replace","path":"/baz","value":"boo"}]"#, #"{"baz":"boo","foo":"bar"}"#),
        (
            #"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#, #"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#,
            #"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#
        ),
        (#"{"foo":["all","grass","cows","eat"]}"#, #"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#, #"{"foo":["all","cows","eat","grass"]}"#),
        (
            #"{"baz":"qux","foo":["a",2,"c"]}"#, #"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]"#,
            #"{"baz":"qux","foo":["a",2,"c"]}"#
        ),
        (#"{"foo":"bar"}"#, #"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#, #"{"foo":"bar","child":{"grandchild":{}}}"#),
        // A.11: a member the operation does not define is ignored.
        (#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux","xyz":123}]"#, #"{"foo":"bar","baz":"qux"}"#),
        (#"{"foo":["bar"]}"#, #"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#, #"{"foo":["bar",["abc","def"]]}"#),
        (#"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~01","value":10}]"#, #"{"/":9,"~1":10}"#),
        (#"{"a":1}"#, #"[{"op":"copy","from":"/a","path":"/b"}]"#, #"{"a":1,"b":1}"#),
    ])
    func jsonPatchFollowsRFC6902(document: String, patch: String, result: String) throws {
        #expect(try apply(patch, to: document) == .success(json(result)))
    }

    /// RFC 6902, Appendix A: the examples that fail, and where.
    @Test func failingJSONPatchesSayWhichOperationAndWhere() throws {
        #expect(try apply(#"[{"op":"test","path":"/baz","value":"bar"}]"#, to: #"{"baz":"qux"}"#) == .failure(.testFailed(index: 0, path: "/baz")))
        #expect(try apply(#"[{"op":"test","path":"/~01","value":"10"}]"#, to: #"{"/":9,"~1":10}"#) == .failure(.testFailed(index: 0, path: "/~01")))
        // A test of a location that does not exist fails as any operation there does (422),
        // not as a value that differs (409).
        for path in ["/nosuch", "/foo/01", "/foo/5"] {
            guard case .failure(.unappliable(0, path, _)) = try apply(#"[{"op":"test","path":"\#(path)","value":1}]"#, to: #"{"foo":[1]}"#) else {
                Issue.record("a test of \(path), which does not exist")
                continue
            }
        }
        guard case .failure(.unappliable(0, "/baz/bat", _)) = try apply(#"[{"op":"add","path":"/baz/bat","value":"qux"}]"#, to: #"{"foo":"bar"}"#) else {
            Issue.record("adding to a nonexistent target must fail")
            return
        }
        guard
            case .failure(.unappliable(1, "/a/b", _)) = try apply(
                #"[{"op":"test","path":"/a","value":{}},{"op":"move","from":"/a","path":"/a/b"}]"#, to: #"{"a":{}}"#)
        else {
            Issue.record("a value cannot move into itself")
            return
        }
        guard case .failure(.unappliable(0, "/foo/3", _)) = try apply(#"[{"op":"add","path":"/foo/3","value":1}]"#, to: #"{"foo":[1]}"#) else {
            Issue.record("an index past the end is refused")
            return
        }
        guard case .failure(.unappliable(0, "/foo/01", _)) = try apply(#"[{"op":"remove","path":"/foo/01"}]"#, to: #"{"foo":[1,2]}"#) else {
            Issue.record("a leading zero is not an index")
            return
        }
    }

    @Test func malformedPatchDocumentsAreRefused() throws {
        for patch in [
            #"{"op":"add"}"#, #"[{"op":"add","path":"/a"}]"#, #"[{"op":"move","path":"/a"}]"#, #"[{"op":"add","path":"a","value":1}]"#,
            #"[{"op":"nope","path":"/a"}]"#, #"[{"path":"/a"}]"#, #"[{"op":"add","path":"/~2","value":1}]"#,
        ] {
            #expect(throws: Problem.self, "\(patch)") { _ = try JSONPatchOperation.document(json(patch)) }
        }
    }

    /// The probe that killed the service: `add /j []`, then fifteen copies of `/j` into its
    /// own innermost list. The document's depth doubles with each; the pointers' tokens do
    /// too, and the fifth copy's points deeper than any document a patch may build (a
    /// request body's 16): it cannot apply, 422, before anything runs.
    @Test func theDoublingCopyProbeIsRefusedBeforeItApplies() throws {
        var operations = [#"{"op":"add","path":"/j","value":[]}"#]
        for copy in 1...15 {
            let path = "/j" + String(repeating: "/0", count: (1 << (copy - 1)) - 1) + "/-"
            operations.append(#"{"op":"copy","from":"/j","path":"\#(path)"}"#)
        }
        let document = "[" + operations.joined(separator: ",") + "]"
        #expect(document.utf8.count > 60_000)
        let problem = try #require(throws: Problem.self) { try JSONPatchOperation.document(json(document)) }
        #expect(problem.slug == "patch-not-applicable" && problem.status == .unprocessableContent, "\(problem.detail)")
        #expect(problem.detail.contains("operation 5") && problem.detail.contains("17 tokens"), "\(problem.detail)")
    }

    /// With pointers short enough, a copy of a list into itself still nests one level
    /// deeper each time, and doubles the document: refused at the operation that goes too far.
    @Test func patchesCannotBuildDocumentsTooDeepOrTooLarge() throws {
        let deeper =
            "["
            + ([#"{"op":"add","path":"/j","value":[]}"#] + Array(repeating: #"{"op":"copy","from":"/j","path":"/j/-"}"#, count: 80))
            .joined(separator: ",") + "]"
        guard case .failure(.tooLarge(let index?, "/j/-", _)) = try apply(deeper, to: "{}") else {
            Issue.record("a patch that doubles its document must be refused")
            return
        }
        #expect(index < 40)
        // Deep at once: a 12-deep value put 5 deep.
        let nested = { (depth: Int) in String(repeating: #"{"b":"#, count: depth) + "1" + String(repeating: "}", count: depth) }
        let path = "/a" + String(repeating: "/b", count: 4)
        let deep = #"[{"op":"add","path":"/a","value":\#(nested(5))},{"op":"add","path":"\#(path)","value":\#(nested(12))}]"#
        guard case .failure(.tooLarge(1, _, _)) = try apply(deep, to: "{}") else {
            Issue.record("a value put where it makes the document 18 deep must be refused")
            return
        }
        // As deep as a body may be is fine.
        let fits = #"[{"op":"add","path":"/a","value":\#(nested(5))},{"op":"add","path":"\#(path)","value":\#(nested(10))}]"#
        guard case .success = try apply(fits, to: "{}") else {
            Issue.record("a document 16 deep, as deep as a body, is within the limits")
            return
        }
        // Replacing a large member over and over keeps the count right.
        let large = "\"" + String(repeating: "x", count: 100_000) + "\""
        let replacing = "[" + Array(repeating: #"{"op":"add","path":"/big","value":\#(large)}"#, count: 5).joined(separator: ",") + "]"
        guard case .success = try apply(replacing, to: "{}") else {
            Issue.record("replacing a member releases what it held")
            return
        }
    }

    @Test func ifMatchReadsEntityTags() {
        #expect(RevisionCondition(ifMatch: #""3""#) == .revisions([3]))
        #expect(RevisionCondition(ifMatch: #" "3", "4" "#) == .revisions([3, 4]))
        #expect(RevisionCondition(ifMatch: "*") == .any)
        #expect(RevisionCondition(ifMatch: #"W/"3""#) == .revisions([], weak: [3]))
        #expect(RevisionCondition(ifMatch: #"W/"3""#)?.namesWeakly(3) == true)
        #expect(RevisionCondition(ifMatch: #"W/"3", "3""#)?.namesWeakly(3) == false)
        #expect(RevisionCondition(ifMatch: #""x""#) == .revisions([]))
        #expect(RevisionCondition(ifMatch: "3") == nil)
        #expect(RevisionCondition(ifMatch: #""3"x"#) == nil)
        #expect(RevisionCondition(ifMatch: "") == nil)
    }
}
