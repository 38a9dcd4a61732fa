import Foundation
import TabulaCore
import TabulaICU
import TabulaSamples
import TabulaService
import TabulaTestSupport
import Testing

/// Reloading the definitions while serving (`--watch`, SIGHUP): a reload is a new
/// definition version like a deployment, without a restart. Open streams get the change set
/// from the old screen to the new one; every earlier copy still catches up exactly; a broken
/// directory changes nothing and says why.
@Suite struct ReloadTests {
    /// A directory holding `files` (`screens/`, with `strings/` beside it when there are
    /// string tables), and a server started on it.
    final class Served {
        let root: URL
        let directory: URL
        let api: APITestServer

        init(
            _ files: [DefinitionFile], strings: [DefinitionFile] = [], store kind: StoreKind = .memory, keepDefinitions: Int? = nil,
            preview: Bool = false, backendKey: String? = nil
        ) throws {
            root = try makeTemporaryDirectory()
            directory = root.appendingPathComponent("screens")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in files { try Self.write(file, to: directory) }
            if !strings.isEmpty {
                let stringsDirectory = root.appendingPathComponent("strings")
                try FileManager.default.createDirectory(at: stringsDirectory, withIntermediateDirectories: true)
                for file in strings { try Self.write(file, to: stringsDirectory) }
            }
            let sources = strings.isEmpty ? nil : StringSources(files: strings, defaultLocale: StringSources.defaultLocale, rules: ICULocaleRules())
            let catalogue = try Catalogue.load(files, strings: sources)
            let factory = try StoreFactory(kind)
            if let keepDefinitions { factory.settings.keepDefinitions = keepDefinitions }
            api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) {
                $0.preview = preview
                $0.backendKey = backendKey.flatMap(APIKey.init)
            }
        }

        /// The bundled screens and string tables.
        static func fixtures(preview: Bool = false) throws -> Served {
            try Served(try ReloadTests.fixtureFiles(), strings: try ReloadTests.fixtureFiles("Fixtures/strings"), preview: preview)
        }

        deinit {
            api.store.close()
            try? FileManager.default.removeItem(at: root)
        }

        /// Writes a file whole, as editors save: a temporary file renamed over the old one.
        static func write(_ file: DefinitionFile, to directory: URL) throws {
            let temporary = directory.appendingPathComponent(".\(file.name).tmp")
            try Data(file.bytes).write(to: temporary)
            guard rename(temporary.path, directory.appendingPathComponent(file.name).path) == 0 else {
                throw ServerProcessError("cannot rename \(temporary.path): \(String(cString: strerror(errno)))")
            }
        }

        func write(_ file: DefinitionFile) throws { try Self.write(file, to: directory) }

        func reload() -> ReloadOutcome { api.service.reload(from: DefinitionDirectory(directory.path)) }

        func screen(_ session: String, _ id: String) throws -> Screen {
            let response = try api.send("GET", "/v1/screens/\(id)", session: session)
            #expect(response.status == 200, "\(response.bodyText)")
            return try Screen(jsonBytes: response.body)
        }
    }

    static func fixtureFiles(_ path: String = "Fixtures/screens") throws -> [DefinitionFile] {
        let directory = repositoryRoot.appendingPathComponent(path)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted().map {
            DefinitionFile(name: $0, bytes: [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))))
        }
    }

    /// Reloads remove the versions past `--keep-definitions`, and a copy one of them made
    /// gets 409 from the reloaded instance as from a restarted one; the versions kept still
    /// catch up.
    @Test(arguments: StoreKind.allCases)
    func reloadsForgetTheVersionsTheStoreNoLongerKeeps(kind: StoreKind) throws {
        func version(_ number: Int) -> DefinitionFile {
            DefinitionFile(
                name: "s.json",
                bytes: Array(
                    #"{"id": "s", "title": "Version \#(number)", "sections": [{"id": "a", "rows": [{"id": "r", "kind": "basic", "title": "x"}]}]}"#.utf8))
        }
        let served = try Served([version(1)], store: kind, keepDefinitions: 2)
        let session = try served.api.newSession()
        var definitions = [try served.screen(session, "s").definition ?? ""]
        for number in 2...3 {
            try served.write(version(number))
            #expect(served.reload().version == number)
            definitions.append(try served.screen(session, "s").definition ?? "")
        }
        func catchUp(from definition: String) throws -> RawHTTPResponse {
            try served.api.send("GET", "/v1/screens/s/changes?since=0&definition=\(definition)", session: session)
        }
        let oldest = try catchUp(from: definitions[0])
        #expect(oldest.status == 409 && oldest.problemSlug == "unknown-definition", "\(oldest.bodyText)")
        #expect(try catchUp(from: definitions[1]).status == 200)
        #expect(try catchUp(from: definitions[2]).status == 200)
    }

    /// A state read from `GET /v1/sessions/{id}` is one a `PUT` takes back as it is, also
    /// after a reload dropped a key that the session still holds: a value the `PUT` leaves
    /// as stored is kept unchecked, as a `PATCH` keeps one. A changed value of such a key is
    /// still refused.
    @Test(arguments: StoreKind.allCases)
    func aStateReadIsOneAPutTakesAfterAReload(kind: StoreKind) throws {
        func definition(_ state: String) -> DefinitionFile {
            DefinitionFile(
                name: "s.json",
                bytes: Array(
                    #"{"id": "s", "title": "S", "state": {\#(state)}, "sections": [{"id": "a", "rows": [{"id": "r", "kind": "basic", "title": "x"}]}]}"#
                        .utf8))
        }
        let key = "reload-backend-key-0123"
        let served = try Served([definition(#""kept": true, "dropped": 3"#)], store: kind, backendKey: key)
        let id = try #require(try served.api.send("POST", "/v1/sessions").json.objectValue?["id"]?.stringValue)
        try served.write(definition(#""kept": true"#))
        #expect(served.reload().version == 2)
        let authorization = ["Authorization: Bearer \(key)"]
        let read = try served.api.send("GET", "/v1/sessions/\(id)", headers: authorization)
        let state = try #require(read.json.objectValue?["state"])
        #expect(state.objectValue?["dropped"] != nil, "the session still holds the dropped key: \(read.bodyText)")
        let put = try served.api.send("PUT", "/v1/sessions/\(id)/state", headers: authorization + ["If-Match: *"], json: state.canonicalText)
        #expect(put.status == 200, "\(put.bodyText)")
        let changed = try served.api.send(
            "PUT", "/v1/sessions/\(id)/state", headers: authorization + ["If-Match: *"], json: #"{"kept": false, "dropped": 4}"#)
        #expect(changed.status == 422 && changed.problemSlug == "invalid-state", "\(changed.bodyText)")
    }

    /// A retry is replayed when a row it edited stopped being secure since the first
    /// attempt (here by a reload): whether a row is secure is judged on the definition of
    /// now, and the first attempt's fingerprint left the secret value out, so the retry's
    /// used to differ and get 422 event-id-reused.
    @Test(arguments: StoreKind.allCases)
    func aRetryOfASecureEditIsReplayedAfterTheRowChanged(kind: StoreKind) throws {
        func definition(_ row: String) -> DefinitionFile {
            DefinitionFile(
                name: "s.json",
                bytes: Array(#"{"id": "s", "title": "S", "state": {"name": ""}, "sections": [{"id": "a", "rows": [\#(row)]}]}"#.utf8))
        }
        let served = try Served([definition(#"{"id": "code", "kind": "textField", "title": "Code", "secure": true}"#)], store: kind)
        let session = try served.api.newSession()
        let body = #"{"row": "code", "value": "hunter22", "eventId": "e-secure-1"}"#
        let first = try served.api.send("POST", "/v1/screens/s/edit", session: session, json: body)
        #expect(first.status == 200, "\(first.bodyText)")
        try served.write(definition(#"{"id": "code", "kind": "textField", "title": "Code", "text": "{{name}}", "onEdit": {"set": "name"}}"#))
        #expect(served.reload().version == 2)
        let retry = try served.api.send("POST", "/v1/screens/s/edit", session: session, json: body)
        #expect(retry.status == 200 && retry.body == first.body, "\(retry.bodyText)")
    }

    /// Random definitions edited at random between reloads, on each store: a stream open
    /// across each reload reaches the new screen with one change set, and a copy from any
    /// earlier revision and definition catches up exactly, or sends an event from it.
    @Test(arguments: StoreKind.allCases)
    func everyReloadReachesOpenStreamsAndEveryEarlierCopy(kind: StoreKind) throws {
        for seed in 0..<(kind == .memory ? 12 : 4) {
            var random = SplitMix64(seed: UInt64(seed) &+ 4_300)
            var evolving = EvolvingDefinition.random(&random)
            let served = try Served([evolving.file], store: kind)
            let session = try served.api.newSession()
            let screenID = evolving.screenID
            var copies = [try served.screen(session, screenID)]
            let stream = try StreamClientCopy(port: served.api.port, screen: screenID, session: session)
            try stream.catchUp(to: copies[0], "seed \(seed): opening")
            for round in 0..<3 {
                // Events on the current screen, each kept as an earlier copy.
                var client = DeploymentTests.Client(copy: try served.screen(session, screenID))
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    guard let (event, _) = RandomEvents.pick(on: client.copy, &random) else { break }
                    var body = JSONObject()
                    body["row"] = .string(event.rowID)
                    if case .setSwitch(_, let isOn) = event { body["isOn"] = .bool(isOn) }
                    let answer = try served.api.send(
                        "POST", "/v1/screens/\(screenID)/\(event.kindName)", session: session, json: JSONValue.object(body).canonicalText)
                    guard answer.status == 200 else { continue }
                    try client.apply(answer, reaching: try served.screen(session, screenID), "seed \(seed) round \(round): \(event)")
                    copies.append(client.copy)
                }
                evolving.evolve(&random, edits: Int.random(in: 1...4, using: &random))
                try served.write(evolving.file)
                let outcome = served.reload()
                let current = try served.screen(session, screenID)
                if case .reloaded = outcome {
                    #expect(current.definition == (try Catalogue.load([evolving.file])).screens.first?.definitionID)
                } else {
                    #expect(outcome == .unchanged(version: (outcome.version)), "seed \(seed) round \(round): \(outcome)")
                }
                try stream.catchUp(to: current, "seed \(seed) round \(round): the stream across the reload")

                // Catch-up from an earlier copy, by its revision and definition.
                var catchingUp = DeploymentTests.Client(copy: copies[Int.random(in: copies.indices, using: &random)])
                let query = "since=\(catchingUp.copy.revision)&definition=\(catchingUp.copy.definition ?? "")"
                try catchingUp.apply(
                    try served.api.send("GET", "/v1/screens/\(screenID)/changes?\(query)", session: session), reaching: current,
                    "seed \(seed) round \(round): catch-up")
            }
        }
    }

    /// A reload that makes an item screen a plain one: each item's stream reaches the plain
    /// screen from its own copy. The change sets of one delivery were shared by streams whose
    /// copies had the same definition and revision, whatever item each showed, so item b's
    /// stream got item a's change set.
    @Test func streamsOfItemsReachTheScreenThatNoLongerHasThem() throws {
        func file(items: Bool) -> DefinitionFile {
            let item = items ? #""item": {"list": "things"},"# : ""
            let title = items ? "{{item.name}}" : "A"
            return DefinitionFile(
                name: "d.json",
                bytes: Array(
                    #"""
                    {"id": "d", "title": "Things", \#(item)
                     "state": {"things": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]},
                     "sections": [{"id": "s", "rows": [{"id": "name", "kind": "basic", "title": "\#(title)"}]}]}
                    """#.utf8))
        }
        let served = try Served([file(items: true)])
        let session = try served.api.newSession()
        var streams: [StreamClientCopy] = []
        for item in ["a", "b"] {
            let stream = try StreamClientCopy(port: served.api.port, screen: "d", session: session, query: "?item=\(item)")
            try stream.catchUp(to: try served.screen(session, "d?item=\(item)"), "item \(item): opening")
            streams.append(stream)
        }
        try served.write(file(items: false))
        #expect(served.reload().version == 2)
        let plain = try served.screen(session, "d")
        // Item a's copy shows the plain screen already: its stream gets nothing. Item b's
        // gets the change from its own copy (a read that finds nothing times out).
        for (stream, item) in zip(streams, ["a", "b"]) {
            while stream.copy?.sections != plain.sections, (try? stream.readOne()) == true {}
            #expect(stream.copy?.sections == plain.sections, "item \(item): the stream's copy is not the plain screen")
        }
    }

    /// A broken file changes nothing: the old screens keep serving, and the problems carry
    /// the file, line, column and JSON path. Mending it reloads.
    @Test func aBrokenDirectoryKeepsTheServedScreensAndSaysWhatIsWrong() throws {
        let files = try Self.fixtureFiles()
        let served = try Served(files, strings: try Self.fixtureFiles("Fixtures/strings"))
        let session = try served.api.newSession()
        let before = try served.screen(session, "settings")
        #expect(served.reload() == .unchanged(version: 1))

        let settings = try #require(files.first { $0.name == "settings.json" })
        let text = String(decoding: settings.bytes, as: UTF8.self)
        let broken = text.replacingOccurrences(of: #""title": "{{@common.wifi}}""#, with: #""title": "Wi-Fi {{wify}}""#)
        try served.write(DefinitionFile(name: "settings.json", bytes: Array(broken.utf8)))
        try Data("{\"id\": ".utf8).write(to: served.directory.appendingPathComponent("new.json"))
        guard case .refused(let problems, version: 1) = served.reload() else {
            Issue.record("a broken directory was reloaded")
            return
        }
        #expect(try served.screen(session, "settings") == before)
        let descriptions = problems.problems.map(\.description)
        let line = try #require(broken.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("{{wify}}") }) + 1
        #expect(
            descriptions.contains {
                $0.hasPrefix("settings.json:\(line):") && $0.contains("$.sections[0].rows[0].title: column 9: unknown state key 'wify'")
            })
        #expect(descriptions.contains { $0.hasPrefix("new.json:1:8: $: not valid JSON") })
        #expect(served.api.service.definitionStatus.problems == problems.problems)
        let metrics = try served.api.metrics(showing: #"tabula_definition_reloads_total{outcome="refused"} 1"#)
        #expect(metrics.contains(#"tabula_definition_reloads_total{outcome="refused"} 1"#))

        try FileManager.default.removeItem(at: served.directory.appendingPathComponent("new.json"))
        let mended = text.replacingOccurrences(of: #""title": "{{@common.wifi}}""#, with: #""title": "WLAN""#)
        try served.write(DefinitionFile(name: "settings.json", bytes: Array(mended.utf8)))
        #expect(served.reload() == .reloaded(version: 2, changed: ["settings"], added: [], removed: []))
        #expect(served.api.service.definitionStatus.problems.isEmpty)
        #expect(try served.api.send("GET", "/v1/screens/settings", session: session).bodyText.contains(#""title":"WLAN""#))
    }

    /// Screens can come and go: a new file's screen is served, and a removed screen's
    /// streams end with `gone` (reason `screen-removed`) while its GET is a 404.
    @Test func addedScreensAreServedAndRemovedOnesEndTheirStreams() throws {
        let files = try Self.fixtureFiles()
        let served = try Served(files, strings: try Self.fixtureFiles("Fixtures/strings"))
        let session = try served.api.newSession()
        let stream = try EventStreamClient(port: served.api.port, path: "/v1/screens/static-text/stream", headers: ["X-Session: \(session)"])
        #expect(try stream.nextEvent()?.event == "screen")
        try FileManager.default.removeItem(at: served.directory.appendingPathComponent("static-text.json"))
        let extra = #"{"id": "extra", "title": "Extra", "sections": [{"id": "s", "rows": [{"id": "r", "kind": "basic", "title": "Hi"}]}]}"#
        try served.write(DefinitionFile(name: "extra.json", bytes: Array(extra.utf8)))
        #expect(served.reload() == .reloaded(version: 2, changed: [], added: ["extra"], removed: ["static-text"]))
        let gone = try #require(try stream.nextEvent())
        #expect(gone.event == "gone" && gone.data?.contains(#""reason":"screen-removed""#) == true, "\(gone)")
        #expect(try stream.next() == nil, "the stream ends after gone")
        #expect(try served.api.send("GET", "/v1/screens/static-text", session: session).status == 404)
        #expect(try served.api.send("GET", "/v1/screens/extra", session: session).bodyText.contains(#""title":"Hi""#))
        #expect(try served.api.send("GET", "/v1/screens").bodyText.contains(#""id":"extra""#))
    }
}

extension ReloadOutcome {
    var version: Int {
        switch self {
        case .reloaded(let version, _, _, _), .unchanged(let version), .refused(_, let version): version
        }
    }
}

/// `tabula serve --watch` and SIGHUP, on a real process.
@Suite(.serialized) struct ReloadProcessTests {
    /// A copy of the bundled fixtures to edit: the screens' directory, with the string tables
    /// beside it.
    func fixturesCopy() throws -> URL {
        let root = try makeTemporaryDirectory()
        for part in ["screens", "strings"] {
            let directory = root.appendingPathComponent(part)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in try ReloadTests.fixtureFiles("Fixtures/\(part)") { try Data(file.bytes).write(to: directory.appendingPathComponent(file.name)) }
        }
        return root.appendingPathComponent("screens")
    }

    /// Polls `GET path` until `done` holds for its answer; the seconds it took.
    @discardableResult
    func waitFor(_ server: ServerProcess, _ path: String, within seconds: Double = 10, _ what: String, _ done: (RawHTTPResponse) -> Bool) throws -> Double {
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            if done(try connection.readResponse()) { return Date().timeIntervalSince(start) }
            usleep(20_000)
        }
        Issue.record("\(what): not seen within \(seconds) s; log:\n\(server.log)")
        return seconds
    }

    @Test func watchingPicksUpChangedAddedAndRemovedFiles() throws {
        let directory = try fixturesCopy()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(arguments: ["--store", "memory", "--screens", directory.path, "--watch"])
        // Log lines below warning are written every 100 ms, later than the start's notice.
        #expect(server.waitForLog(containing: ["watching \(directory.path) for changes (inotify)"], seconds: 60), "\(server.log)")
        let settings = directory.appendingPathComponent("settings.json")
        // Written in place, as some editors save.
        let text = try String(contentsOf: settings, encoding: .utf8)
        try Data(text.replacingOccurrences(of: #""title": "{{@common.wifi}}""#, with: #""title": "WLAN""#).utf8).write(to: settings)
        let changed = try waitFor(server, "/v1/screens/settings", "the changed title") { $0.bodyText.contains(#""title":"WLAN""#) }
        try Data(#"{"id": "extra", "title": "Extra", "sections": []}"#.utf8).write(to: directory.appendingPathComponent("extra.json"))
        let added = try waitFor(server, "/v1/screens/extra", "the added screen") { $0.status == 200 }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("extra.json"))
        let removed = try waitFor(server, "/v1/screens/extra", "the removed screen") { $0.status == 404 }
        print("reloads seen after \(changed), \(added) and \(removed) s")
        let logged = "reloaded the definitions of \(directory.path): version 4; removed extra"
        #expect(server.waitForLog(containing: [logged], seconds: 60), "\(server.log)")
    }

    @Test func sighupReloadsAndABrokenFileIsLoggedWithItsPlace() throws {
        let directory = try fixturesCopy()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(arguments: ["--store", "memory", "--screens", directory.path])
        let settings = directory.appendingPathComponent("settings.json")
        let text = try String(contentsOf: settings, encoding: .utf8)
        try Data(text.replacingOccurrences(of: #""title": "{{@common.wifi}}""#, with: #""title": "WLAN""#).utf8).write(to: settings)
        server.signal(SIGHUP)
        try waitFor(server, "/v1/screens/settings", "the reload on SIGHUP") { $0.bodyText.contains(#""title":"WLAN""#) }

        try Data(text.replacingOccurrences(of: #""kind": "titleSwitch""#, with: #""kind": "titleSwich""#).utf8).write(to: settings)
        server.signal(SIGHUP)
        let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(#""kind": "titleSwitch""#) }) + 1
        // Each problem is its own log line, written as it is logged: wait for the one sought.
        let problem = #"$.sections[0].rows[0].kind: unknown kind "titleSwich""#
        server.waitForLog(containing: [problem], seconds: 60)
        #expect(server.log.contains("version 2 keeps serving"), "\(server.log)")
        #expect(server.log.contains("settings.json:\(line):") && server.log.contains(problem), "\(server.log)")
        try waitFor(server, "/v1/screens/settings", "the screens served before") { $0.bodyText.contains(#""title":"WLAN""#) }
    }

    /// A SIGHUP with a file whose expression chains 12,000 terms crashed the running
    /// service; now the reload is refused with the problem and its place, and the screens
    /// served before keep serving.
    @Test func aReloadOfAnOverlyDeepExpressionIsRefused() throws {
        let directory = try fixturesCopy()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(arguments: ["--store", "memory", "--screens", directory.path])
        let chain = Array(repeating: "wifi", count: 12_000).joined(separator: " || ")
        let definition =
            #"{"id": "deep", "title": "Deep", "state": {"wifi": true}, "sections": [{"id": "s", "rows": [{"id": "r", "kind": "basic", "title": "T", "visibleWhen": "\#(chain)"}]}]}"#
        try Data(definition.utf8).write(to: directory.appendingPathComponent("deep.json"))
        server.signal(SIGHUP)
        #expect(server.waitForLog(containing: ["deep.json:1:", "nests deeper than 64 levels", "version 1 keeps serving"]), "\(server.log)")
        try waitFor(server, "/v1/screens/settings", "the screens served before") { $0.status == 200 }
        try waitFor(server, "/v1/screens/deep", "no screen from the refused file") { $0.status == 404 }
    }
}
