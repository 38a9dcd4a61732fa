import Foundation
import TabulaCore
import TabulaService
import TabulaTestSupport
import Testing

/// The preview page's routes (`--preview`); the page itself is tested in a real browser by
/// Tests/Browser/preview_test.py (Scripts/browser-check).
@Suite struct PreviewRoutesTests {
    @Test func thePageAndItsAssetsAreServedOnlyWithPreviewOn() throws {
        let off = try APITestServer()
        for path in ["/preview", "/preview/settings", "/preview/assets/preview.js", "/preview/api/catalogue"] {
            #expect(try off.send("GET", path).status == 404, "\(path) without --preview")
        }
        let on = try APITestServer { $0.preview = true }
        for path in ["/preview", "/preview/settings"] {
            let page = try on.send("GET", path)
            #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8", "\(path)")
            #expect(page.bodyText.contains("/preview/assets/preview.js") && page.bodyText.contains("/preview/assets/preview.css"))
            #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
            #expect(page.header("X-Content-Type-Options") == "nosniff")
        }
        let script = try on.send("GET", "/preview/assets/preview.js")
        #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8" && script.body.count > 1000)
        let style = try on.send("GET", "/preview/assets/preview.css")
        #expect(style.status == 200 && style.header("Content-Type") == "text/css; charset=utf-8" && style.body.count > 1000)
        let missing = try on.send("GET", "/preview/assets/other.js")
        #expect(missing.status == 404 && missing.header("Content-Type") == "application/problem+json")
    }

    /// With an API key, the catalogue (which names the files) needs it; the page does not.
    @Test func theCatalogueNeedsTheAPIKeyWhenOneIsSet() throws {
        let api = try APITestServer {
            $0.preview = true
            $0.apiKey = APIKey("preview-api-key-0123")
        }
        #expect(try api.send("GET", "/preview/settings").status == 200)
        #expect(try api.send("GET", "/preview/api/catalogue").status == 401)
        #expect(try api.send("GET", "/preview/api/catalogue", headers: ["Authorization: Bearer preview-api-key-0123"]).status == 200)
    }

    /// The catalogue's status: its version and screens, and the problems of a refused reload,
    /// each with its place; a good reload clears them.
    @Test func theCatalogueStatusListsTheProblemsOfARefusedReload() throws {
        let served = try ReloadTests.Served.fixtures(preview: true)
        let first = try served.api.send("GET", "/preview/api/catalogue").json.objectValue
        #expect(first?["version"]?.intValue == 1 && first?["problems"]?.arrayValue?.isEmpty == true)
        let screens = first?["screens"]?.arrayValue?.compactMap { $0.objectValue }
        #expect(screens?.first { $0["id"]?.stringValue == "settings" }?["file"]?.stringValue == "settings.json")
        #expect(screens?.first { $0["id"]?.stringValue == "settings" }?["title"]?.stringValue == "Settings")

        try Data("{\n  \"id\": \"broken\",\n  \"titel\": \"x\"\n}\n".utf8).write(to: served.directory.appendingPathComponent("broken.json"))
        _ = served.reload()
        let refused = try served.api.send("GET", "/preview/api/catalogue").json.objectValue
        #expect(refused?["version"]?.intValue == 1)
        let problems = refused?["problems"]?.arrayValue?.compactMap { $0.objectValue } ?? []
        let unknown = problems.first { $0["message"]?.stringValue?.contains("unknown field \"titel\"") == true }
        #expect(unknown?["file"]?.stringValue == "broken.json" && unknown?["path"]?.stringValue == "$", "\(problems)")
        #expect(unknown?["line"]?.intValue == 1 && unknown?["column"]?.intValue == 1, "\(problems)")

        try FileManager.default.removeItem(at: served.directory.appendingPathComponent("broken.json"))
        try served.write(DefinitionFile(name: "extra.json", bytes: Array(#"{"id": "extra", "title": "Extra", "sections": []}"#.utf8)))
        _ = served.reload()
        let reloaded = try served.api.send("GET", "/preview/api/catalogue").json.objectValue
        #expect(reloaded?["version"]?.intValue == 2 && reloaded?["problems"]?.arrayValue?.isEmpty == true)
        #expect(reloaded?["screens"]?.arrayValue?.contains { $0.objectValue?["id"]?.stringValue == "extra" } == true)
    }
}

/// `tabula preview DIR`: one command serves a directory with the page and live reload.
@Suite struct PreviewCommandTests {
    @Test func previewServesTheDirectoryWithThePageAndReloadsOnSave() throws {
        let directory = try ReloadProcessTests().fixturesCopy()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try ServerProcess.freePort()
        let process = Process()
        process.executableURL = tabulaExecutable
        process.arguments = ["preview", directory.path, "--port", String(port)]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TABULA_") }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var page: RawHTTPResponse?
        for _ in 0..<200 {
            if let connection = try? RawHTTPConnection(port: port, timeout: 1) {
                try connection.send("GET /preview HTTP/1.1\r\nHost: x\r\n\r\n")
                page = try connection.readResponse()
                break
            }
            usleep(50_000)
        }
        #expect(page?.status == 200)
        let settings = directory.appendingPathComponent("settings.json")
        let text = try String(contentsOf: settings, encoding: .utf8)
        try Data(text.replacingOccurrences(of: #""title": "{{@common.wifi}}""#, with: #""title": "WLAN""#).utf8).write(to: settings)
        var reloaded = false
        for _ in 0..<200 where !reloaded {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /v1/screens/settings HTTP/1.1\r\nHost: x\r\n\r\n")
            reloaded = try connection.readResponse().bodyText.contains(#""title":"WLAN""#)
            if !reloaded { usleep(50_000) }
        }
        process.terminate()
        process.waitUntilExit()
        let log = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(reloaded, "the saved file was not served: \(log)")
        #expect(log.contains("preview: http://127.0.0.1:\(port)/preview"), "\(log)")
        #expect(log.contains("memory store") && log.contains("(inotify)"), "\(log)")
    }

    /// What its command line leaves out, `preview` reads from the environment as `serve`
    /// does (a container's TABULA_HOST and TABULA_PORT were ignored), and a value that
    /// starts with "-" is a value, not a missing one.
    @Test func previewReadsTheEnvironmentAndTakesAnyValue() throws {
        let port = try ServerProcess.freePort()
        let process = Process()
        process.executableURL = tabulaExecutable
        process.arguments = ["preview"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TABULA_") }
        environment["TABULA_PORT"] = String(port)
        environment["TABULA_SCREENS"] = repositoryRoot.appendingPathComponent("Fixtures/screens").path
        process.environment = environment
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var page: RawHTTPResponse?
        for _ in 0..<200 where page == nil {
            if let connection = try? RawHTTPConnection(port: port, timeout: 1) {
                try connection.send("GET /v1/screens/sign-in HTTP/1.1\r\nHost: x\r\n\r\n")
                page = try connection.readResponse()
            } else {
                usleep(50_000)
            }
        }
        #expect(page?.status == 200)

        let dashed = Process()
        dashed.executableURL = tabulaExecutable
        dashed.arguments = ["preview", "--port", "0", "--", "-screens-here"]
        let errors = Pipe()
        dashed.standardOutput = Pipe()
        dashed.standardError = errors
        try dashed.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        dashed.waitUntilExit()
        #expect(dashed.terminationStatus == 1 && text.contains("-screens-here"), "\(text)")
        #expect(!text.contains("Missing value"), "\(text)")
    }
}
