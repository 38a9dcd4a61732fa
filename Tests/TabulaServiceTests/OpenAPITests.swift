import Foundation
import TabulaCore
import TabulaTestSupport
import Testing

@Suite struct OpenAPITests {
    /// With every optional route on: the preview page's too.
    @Test func documentsEveryRouteTheRouterHas() throws {
        let api = try APITestServer { $0.preview = true }
        let response = try api.send("GET", "/openapi.json")
        #expect(response.status == 200)
        let document = try #require(response.json.objectValue)
        #expect(document["openapi"]?.stringValue == "3.1.0")
        let paths = try #require(document["paths"]?.objectValue)
        for (method, pattern) in api.service.routes {
            let operation = paths[pattern]?.objectValue?[method.rawValue.lowercased()]
            #expect(operation != nil, "\(method.rawValue) \(pattern) is not in /openapi.json")
        }
        let documented = paths.pairs.flatMap { path, item in (item.objectValue?.keys ?? []).map { "\($0.uppercased()) \(path)" } }
        let routed = api.service.routes.map { "\($0.method.rawValue) \($0.pattern)" }
        #expect(Set(documented) == Set(routed), "documented but not routed: \(Set(documented).subtracting(routed))")
    }

    @Test func everyEventOperationDocumentsItsStatusCodes() throws {
        let api = try APITestServer()
        let document = try JSONParser().parse(try api.send("GET", "/openapi.json").body)
        for kind in ["selection", "switch", "deletion"] {
            let responses = document.objectValue?["paths"]?.objectValue?["/v1/screens/{id}/\(kind)"]?.objectValue?["post"]?.objectValue?["responses"]?
                .objectValue
            let statuses = Set(responses?.keys ?? [])
            #expect(statuses.isSuperset(of: ["200", "400", "401", "404", "409", "413", "415", "422"]))
        }
    }

    static let file = repositoryRoot.appendingPathComponent("openapi.json")

    /// The server sends the repository's `openapi.json`, byte for byte.
    @Test func servesTheRepositorysFile() throws {
        let api = try APITestServer()
        let response = try api.send("GET", "/openapi.json")
        #expect(response.body == [UInt8](try Data(contentsOf: Self.file)))
        #expect(response.header("Content-Type") == "application/json")
    }

    /// The file is strict JSON, laid out as `python3 -m json.tool --indent 2` lays it out
    /// (so that its diffs show what changed), and a valid OpenAPI 3.1 document
    /// (openapi-spec-validator, PyPI, which Scripts/test installs).
    @Test func isALintedValidOpenAPIDocument() throws {
        _ = try JSONParser().parse([UInt8](try Data(contentsOf: Self.file)))
        let script = """
            import json, sys
            from openapi_spec_validator import validate
            text = open(sys.argv[1], encoding="utf-8").read()
            document = json.loads(text)
            if json.dumps(document, indent=2, ensure_ascii=False) + "\\n" != text:
                sys.exit("openapi.json is not laid out as python3 -m json.tool --indent 2 --no-ensure-ascii lays it out")
            validate(document)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, Self.file.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(message)")
    }
}
