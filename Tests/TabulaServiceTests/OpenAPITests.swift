import Foundation
import Testing
import TabulaCore
import TabulaTestSupport

@Suite struct OpenAPITests {
    @Test func documentsEveryRouteTheRouterHas() throws {
        let api = try APITestServer()
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
            let responses = document.objectValue?["paths"]?.objectValue?["/v1/screens/{id}/\(kind)"]?.objectValue?["post"]?.objectValue?["responses"]?.objectValue
            let statuses = Set(responses?.keys ?? [])
            #expect(statuses.isSuperset(of: ["200", "400", "401", "404", "409", "413", "415", "422"]))
        }
    }

    @Test func isAValidOpenAPIDocument() throws {
        // openapi-spec-validator (PyPI), installed by .ci/run.
        let api = try APITestServer()
        let body = try api.send("GET", "/openapi.json").body
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString).json")
        try Data(body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import json,sys; from openapi_spec_validator import validate; validate(json.load(open(sys.argv[1])))", file.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(message)")
    }
}
