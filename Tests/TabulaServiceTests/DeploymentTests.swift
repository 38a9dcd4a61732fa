import Foundation
import TabulaCore
import TabulaSamples
import TabulaService
import TabulaTestSupport
import Testing

/// A deployment that changes a screen's definition must not break the clients showing it:
/// a copy made by the earlier definition is brought to the new screen by one change set, and
/// an `indexPath` changes the row the copy shows there. Checked on every store: the memory
/// store with a second service on the same store, SQLite restarted on the same directory,
/// and PostgreSQL with two instances, one on the earlier definitions and one on the new.
@Suite(.serialized) struct DeploymentTests {
    /// A client's copy of a screen, kept by applying every answer it gets, as an app does.
    struct Client {
        var copy: Screen

        /// Applies an event result or a `changes` answer; the change set must keep the
        /// batch-update rules against `current`, the server's screen after it.
        mutating func apply(_ answer: RawHTTPResponse, reaching current: Screen, _ what: String) throws {
            let object = try #require(answer.json.objectValue, "\(what): \(answer.status) \(answer.bodyText)")
            let changes = try ChangeSet(json: try #require(object["changes"], "\(what): no changes in \(answer.bodyText)"))
            let violations = BatchUpdateRules.violations(of: changes, from: copy, to: current)
            #expect(violations.isEmpty, "\(what): \(violations)")
            var next = try changes.applyChecked(to: copy)
            next.revision = try #require(object["toRevision"]?.intValue)
            next.definition = try #require(object["definition"]?.stringValue)
            #expect(next == current, "\(what): the copy does not reach the server's screen")
            copy = next
        }
    }

    /// The scenario of the issue, on the bundled settings screen: the client shows revision
    /// 1 of the first definition when Airplane Mode is added at the top of "radios".
    @Test(arguments: StoreKind.allCases)
    func addingARowAtTheTopDoesNotBreakAClientShowingTheScreen(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let before = try APITestServer.fixtures()
        let after = try Self.fixturesWithAirplaneMode()
        var deployment = try Deployment(factory, before)
        let session = try deployment.old.newSession()
        let copyAtZero = try screen(deployment.old, session)
        _ = try deployment.old.send("POST", "/v1/screens/settings/switch", session: session, json: #"{"row": "bluetooth", "isOn": true}"#)
        let copyAtOne = try screen(deployment.old, session)
        #expect(copyAtOne.revision == 1)
        try deployment.deploy(after)
        let new = deployment.new
        let definition = try #require(copyAtOne.definition)
        #expect(definition != after.screen(id: "settings")?.definitionID)

        var client = Client(copy: copyAtZero)
        let catchUp = try new.send("GET", "/v1/screens/settings/changes?since=0&definition=\(definition)", session: session)
        try client.apply(catchUp, reaching: try screen(new, session), "catch-up from revision 0")
        #expect(catchUp.json.objectValue?["fromRevision"] == 0)

        // The user taps row 0 of the copy at revision 1: Wi-Fi (already on), not Airplane Mode.
        client = Client(copy: copyAtOne)
        let tap = try new.send(
            "POST", "/v1/screens/settings/switch", session: session,
            json: #"""
                {"indexPath": {"section": 0, "row": 0}, "isOn": false, "revision": 1, "definition": "\#(definition)"}
                """#)
        #expect(tap.status == 200, "\(tap.bodyText)")
        let current = try screen(new, session)
        try client.apply(tap, reaching: current, "an indexPath event on the old copy")
        #expect(current.row(at: RowPath(section: 0, row: 0))?.content == .titleSwitch(title: "Airplane Mode", isOn: false))
        #expect(current.row(at: RowPath(section: 0, row: 1))?.content == .titleSwitch(title: "Wi-Fi", isOn: false))

        // A definition never served changes nothing and tells the client to fetch again.
        let unknown = try new.send(
            "POST", "/v1/screens/settings/switch", session: session,
            json: #"""
                {"indexPath": {"section": 0, "row": 0}, "isOn": true, "revision": 2, "definition": "0123456789abcde"}
                """#)
        #expect(unknown.status == 409 && unknown.problemSlug == "unknown-definition")
        #expect(unknown.json.objectValue?["currentDefinition"]?.stringValue == current.definition)
        #expect(try screen(new, session) == current)
        let unknownCatchUp = try new.send("GET", "/v1/screens/settings/changes?since=1&definition=0123456789abcde", session: session)
        #expect(unknownCatchUp.status == 409 && unknownCatchUp.problemSlug == "unknown-definition")
        deployment.close()
    }

    /// Each start records the definitions it serves; a screen keeps its newest
    /// `keepDefinitions` versions, and a copy made by an older one gets 409.
    @Test(arguments: StoreKind.allCases)
    func eachScreenKeepsItsNewestVersions(kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        factory.settings.keepDefinitions = 2
        let versions = try (1...3).map { version in
            try Self.fixtures(editing: "settings.json") { $0.replacingOccurrences(of: #""{{@common.wifi}}""#, with: #""Wi-Fi \#(version)""#) }
        }
        var deployment = try Deployment(factory, versions[0])
        let session = try deployment.old.newSession()
        let copies = try versions.indices.map { index in
            if index > 0 { try deployment.deploy(versions[index]) }
            return try screen(deployment.new, session)
        }
        #expect(Set(copies.compactMap(\.definition)).count == 3)
        let oldest = try deployment.new.send("GET", "/v1/screens/settings/changes?since=0&definition=\(copies[0].definition ?? "")", session: session)
        #expect(oldest.status == 409 && oldest.problemSlug == "unknown-definition", "\(oldest.bodyText)")
        var client = Client(copy: copies[1])
        try client.apply(
            try deployment.new.send("GET", "/v1/screens/settings/changes?since=0&definition=\(copies[1].definition ?? "")", session: session),
            reaching: try screen(deployment.new, session), "catch-up from the second version")
        // The about-details screen did not change: its one version is kept whatever happens.
        let about = try screen(deployment.new, session, "/v1/screens/about-details")
        #expect(
            try deployment.new.send("GET", "/v1/screens/about-details/changes?since=0&definition=\(about.definition ?? "")", session: session).status == 200)
        deployment.close()
    }

    /// Random definitions, random edits between the deployments, random clients.
    @Test(arguments: StoreKind.allCases)
    func randomDeploymentsKeepEveryClientsCopyExact(kind: StoreKind) throws {
        for seed in 0..<(kind == .memory ? 24 : 10) {
            try randomDeployment(kind, seed: UInt64(seed))
        }
    }

    private func randomDeployment(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var evolving = EvolvingDefinition.random(&random)
        let first = try Catalogue.load([evolving.file])
        let factory = try StoreFactory(kind)
        var deployment = try Deployment(factory, first)
        defer { deployment.close() }
        let screenPath = "/v1/screens/\(evolving.screenID)"
        let session = try deployment.old.newSession()

        // Before: random events, each from the copy the client then holds; every copy is kept.
        var model = Model(state: first.initialState, definition: try #require(first.screens.first))
        var client = Client(copy: try screen(deployment.old, session, screenPath))
        var copies = [client.copy]
        for step in 0..<Int.random(in: 0...5, using: &random) {
            let instance = deployment.any(&random)
            guard let sent = try sendRandomEvent(instance, session, &client, &model, &random, "seed \(seed) step \(step)") else { break }
            if sent { copies.append(client.copy) }
        }

        evolving.evolve(&random, edits: Int.random(in: 1...6, using: &random))
        let second = try Catalogue.load([evolving.file])
        try deployment.deploy(second)
        model.definition = try #require(second.screens.first)
        let current = try screen(deployment.new, session, screenPath)
        #expect(current == render(model.definition, model.state), "seed \(seed): the new instance renders the stored state")

        // Catch-up from a random earlier copy, named by its revision and definition.
        var catchingUp = Client(copy: copies[Int.random(in: copies.indices, using: &random)])
        let query = "since=\(catchingUp.copy.revision)&definition=\(catchingUp.copy.definition ?? "")"
        try catchingUp.apply(
            try deployment.new.send("GET", "\(screenPath)/changes?\(query)", session: session), reaching: current, "seed \(seed): catch-up")

        // Events from old copies on the new instance, and, on PostgreSQL, from the new copy
        // on the instance that still runs the earlier definitions.
        client = Client(copy: copies[Int.random(in: copies.indices, using: &random)])
        for step in 0..<3 {
            guard try sendRandomEvent(deployment.new, session, &client, &model, &random, "seed \(seed) after, step \(step)") != nil else { break }
        }
        if kind == .postgres, let firstDefinition = first.screens.first {
            model.definition = firstDefinition
            for step in 0..<2 {
                guard try sendRandomEvent(deployment.old, session, &client, &model, &random, "seed \(seed) back on the old instance, step \(step)") != nil
                else { break }
            }
        }
    }

    /// What the server should hold: the state, reduced by the core with the definition the
    /// serving instance has.
    struct Model {
        var state: SessionState
        var definition: ScreenDefinition
    }

    /// Sends a random event on a row of the client's copy (by `indexPath` or by id, with
    /// the copy's revision and definition), checks the answer against the model, and applies
    /// it. `nil` when the copy offers no event; `false` when the event was refused.
    private func sendRandomEvent(
        _ api: APITestServer, _ session: String, _ client: inout Client, _ model: inout Model, _ random: inout SplitMix64, _ what: String
    ) throws -> Bool? {
        guard let (event, path) = RandomEvents.pick(on: client.copy, &random) else { return nil }
        var body = JSONObject()
        if Bool.random(using: &random) {
            body["indexPath"] = ["section": .number(Double(path.section)), "row": .number(Double(path.row))]
        } else {
            body["row"] = .string(event.rowID)
        }
        body["revision"] = .number(Double(client.copy.revision))
        body["definition"] = .string(client.copy.definition ?? "")
        if case .setSwitch(_, let isOn) = event { body["isOn"] = .bool(isOn) }
        let route = "/v1/screens/\(client.copy.id)/\(event.kindName)"
        let answer = try api.send("POST", route, session: session, json: JSONValue.object(body).canonicalText)
        let expected = try? reduce(model.state, event, model.definition)
        guard let expected else {
            #expect(answer.status == 404 || answer.status == 422, "\(what): \(event) should be refused: \(answer.status) \(answer.bodyText)")
            return false
        }
        #expect(answer.status == 200, "\(what): \(event) from \(body.pairs): \(answer.status) \(answer.bodyText)")
        guard answer.status == 200 else { return false }
        model.state = expected.state
        let current = try screen(api, session, "/v1/screens/\(client.copy.id)")
        #expect(current == render(model.definition, model.state), "\(what): the event changed another row than the copy's")
        try client.apply(answer, reaching: current, "\(what): \(event)")
        return true
    }

    private func screen(_ api: APITestServer, _ session: String, _ path: String = "/v1/screens/settings") throws -> Screen {
        let response = try api.send("GET", path, session: session)
        #expect(response.status == 200, "\(response.bodyText)")
        return try Screen(jsonBytes: response.body)
    }

    /// The bundled fixtures with an Airplane Mode switch (on a new state key) at the top of
    /// the settings screen's "radios".
    static func fixturesWithAirplaneMode() throws -> Catalogue {
        try fixtures(editing: "settings.json") {
            $0.replacingOccurrences(of: #""wifi": true,"#, with: #""airplane": false, "wifi": true,"#)
                .replacingOccurrences(
                    of: #"{"id": "wifi", "kind": "titleSwitch""#,
                    with: #"""
                        {"id": "airplane", "kind": "titleSwitch", "title": "Airplane Mode", "isOn": "airplane", "onSwitch": {"set": "airplane"}},
                        {"id": "wifi", "kind": "titleSwitch"
                        """#)
        }
    }

    /// The bundled fixtures with one file edited.
    static func fixtures(editing name: String, _ edit: (String) -> String) throws -> Catalogue {
        let directory = repositoryRoot.appendingPathComponent("Fixtures/screens")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        return try Catalogue.load(
            try names.map { fileName in
                let text = try String(contentsOf: directory.appendingPathComponent(fileName), encoding: .utf8)
                return DefinitionFile(name: fileName, bytes: Array((fileName == name ? edit(text) : text).utf8))
            }, strings: FixtureFiles.strings(besideScreens: directory.path))
    }
}

/// One store's deployment: services on the first catalogue, then one on the second over
/// the same data. SQLite restarts (one process owns its directory); PostgreSQL runs two
/// instances and restarts one of them while the other goes on with the first catalogue;
/// the memory store is shared by a second service.
struct Deployment {
    let factory: StoreFactory
    /// The instance that keeps the first catalogue (on SQLite, the only one: restarted).
    private(set) var old: APITestServer
    /// On PostgreSQL, the instance that is restarted with the second catalogue.
    private var second: APITestServer?

    init(_ factory: StoreFactory, _ catalogue: Catalogue) throws {
        self.factory = factory
        old = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        if factory.kind == .postgres { second = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) }
    }

    /// The instance serving the second catalogue once deployed.
    var new: APITestServer { second ?? old }

    /// An instance at random, before the deployment.
    func any(_ random: inout SplitMix64) -> APITestServer {
        if let second, Bool.random(using: &random) { return second }
        return old
    }

    mutating func deploy(_ catalogue: Catalogue) throws {
        switch factory.kind {
        case .memory:
            second = try APITestServer(catalogue: catalogue, store: old.store)
        case .sqlite:
            old.server.shutdown()
            old.store.close()
            old = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        case .postgres:
            second?.server.shutdown()
            second?.store.close()
            second = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue))
        }
    }

    func close() {
        old.store.close()
        if factory.kind == .postgres { second?.store.close() }
    }
}
