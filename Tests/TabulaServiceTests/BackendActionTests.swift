import Dispatch
import Foundation
import Logging
import TabulaCore
import TabulaExampleBackend
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport
import Testing

@testable import TabulaService

/// An app backend on a loopback port for the tests: the example backend, or an answer the
/// test sets (a status and a body, after a pause, or held until the test lets it go). It
/// records every call it gets.
final class TestBackend: HTTPHandler, @unchecked Sendable {
    enum Behaviour {
        case example
        case fixed(status: Int, body: String)
    }

    static let secret = "test-actions-secret"
    let behaviour = Locked<Behaviour>(.example)
    /// Each call, as it arrived.
    let calls = Locked<[Request]>([])
    /// How long to wait before answering.
    let delay = Locked<Duration>(.zero)
    /// When set, answers wait until the test signals it.
    let gate = Locked<DispatchSemaphore?>(nil)
    private let example = ExampleBackend(secret: secret)
    private(set) var server: HTTPServer?

    init() throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.threads = 2
        var logger = Logger(label: "test-backend")
        logger.logLevel = .error
        let server = HTTPServer(configuration: configuration, handler: self, observer: SilentObserver(), logger: logger)
        try server.start()
        self.server = server
    }

    deinit { server?.shutdown() }

    var url: String { "http://127.0.0.1:\(server?.port ?? 0)" }

    func handle(_ request: Request, responder: Responder) {
        calls.withLock { $0.append(request) }
        let (delay, gate) = (delay.withLock { $0 }, gate.withLock { $0 })
        let response: Response
        switch behaviour.withLock({ $0 }) {
        case .example: response = example.answer(request)
        case .fixed(let status, let body):
            response = Response(status: .init(code: status), headerFields: [.contentType: "application/json"], body: Array(body.utf8))
        }
        guard delay > .zero || gate != nil else { return responder.send(response) }
        Thread.detachNewThread {
            gate?.wait()
            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            responder.send(response)
        }
    }

    func refusal(_ reason: RejectionReason, under configuration: ServerConfiguration) -> Response {
        Response(status: reason.status)
    }
}

/// `{"call": ACTION}` on each store, against a real backend on a loopback port: the call as
/// the backend gets it (signed, with the form's values, secure ones included), answers with
/// state, errors and effects, failures that change nothing and retries that call once,
/// the limit on calls in flight, and a secret that is never kept.
@Suite struct BackendActionTests {
    static let signIn = "/v1/screens/sign-in/selection"

    func server(_ factory: StoreFactory, _ backend: TestBackend?, timeout: Duration = .seconds(5), concurrency: Int = 100) throws -> APITestServer {
        // With the inbox: a backend may navigate to a message.
        let catalogue = try APITestServer.fixtures(withInbox: true)
        return try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(BackendAPITests.key)
            if let backend {
                configuration.actions = ActionSettings(url: backend.url + "/", secret: TestBackend.secret, timeout: timeout, concurrency: concurrency)
            }
        }
    }

    func signIn(_ api: APITestServer, _ session: String, password: String, eventID: String? = nil, revision: Int? = nil) throws -> RawHTTPResponse {
        var body = #"{"row": "sign-in", "values": {"email": "ann@example.com", "password": "\#(password)"}"#
        if let eventID { body += #", "eventId": "\#(eventID)""# }
        if let revision { body += #", "revision": \#(revision)"# }
        return try api.send("POST", Self.signIn, session: session, json: body + "}")
    }

    func screen(_ api: APITestServer, _ session: String) throws -> Screen {
        try Screen(jsonBytes: try api.send("GET", "/v1/screens/sign-in", session: session).body)
    }

    func row(_ screen: Screen, _ id: String) -> Row? {
        screen.sections.flatMap(\.rows).first { $0.id == id }
    }

    /// A session the backend made, with a subject, and its token.
    func session(_ api: APITestServer) throws -> (token: String, id: String) {
        let created = try api.send("POST", "/v1/sessions", headers: [BackendAPITests.authorization], json: #"{"subject": "user-7"}"#)
        let object = try #require(created.json.objectValue)
        return (try #require(object["session"]?.stringValue), try #require(object["id"]?.stringValue))
    }

    @Test(arguments: StoreKind.allCases)
    func theBackendGetsASignedCallAndItsAnswersShow(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let backend = try TestBackend()
        let api = try server(factory, backend)
        defer { api.store.close() }
        let (session, id) = try session(api)

        let wrong = try signIn(api, session, password: "wrong horse", eventID: "try-1")
        #expect(wrong.status == 200, "\(wrong.bodyText)")
        #expect(wrong.json.objectValue?["submit"] == ["form": "signin", "valid": false])
        #expect(wrong.json.objectValue?["toRevision"]?.intValue == 1)
        let changes = try ChangeSet(json: try #require(wrong.json.objectValue?["changes"]))
        #expect(changes.rows.updated.map(\.row.id) == ["password"], "only the row the backend named; the e-mail shows what was sent")
        #expect(changes.rows.updated.first?.row.error == "Wrong password")
        #expect(row(try screen(api, session), "password")?.error == "Wrong password")

        let call = try #require(backend.calls.withLock { $0.first })
        #expect(call.rawPath == "/sign-in")
        #expect(call.headers.value("Content-Type") == "application/json")
        #expect(call.headers.value("Idempotency-Key") == "try-1")
        let signature = try #require(call.headers.value("Tabula-Signature"))
        #expect(ActionSignature.verify(signature, secret: TestBackend.secret, body: call.body, now: Int(Date().timeIntervalSince1970)))
        #expect(!ActionSignature.verify(signature, secret: "another-secret", body: call.body, now: Int(Date().timeIntervalSince1970)))
        let body = try JSONParser().parse(call.body)
        #expect(body.objectValue?.keys.sorted() == ["action", "eventId", "row", "screen", "session", "state", "values"])
        #expect(body.objectValue?["action"] == "sign-in" && body.objectValue?["eventId"] == "try-1")
        #expect(body.objectValue?["screen"] == "sign-in" && body.objectValue?["row"] == "sign-in")
        #expect(body.objectValue?["values"] == ["email": "ann@example.com", "password": "wrong horse"], "secure values go to the backend only")
        let described = try #require(body.objectValue?["session"]?.objectValue)
        #expect(described["id"]?.stringValue == id && described["subject"] == "user-7" && described["revision"] == 0)
        #expect(described["client"] == .object(JSONObject()))
        #expect(body.objectValue?["state"]?.objectValue?["email"] == "ann@example.com", "the state after the actions before the call")
        #expect(body.objectValue?["state"]?.objectValue?["$form"] == nil)

        // The backend's error shows until the row's next edit.
        let edited = try api.send("POST", "/v1/screens/sign-in/edit", session: session, json: #"{"row": "password", "value": "correct horse"}"#)
        #expect(edited.status == 200)
        #expect(row(try screen(api, session), "password")?.error == nil)

        let right = try signIn(api, session, password: "correct horse", eventID: "try-2")
        #expect(right.status == 200, "\(right.bodyText)")
        #expect(right.json.objectValue?["effects"] == [["type": "navigate", "screen": "settings"]])
        #expect(right.json.objectValue?["submit"] == ["form": "signin", "valid": true])
        let signedIn = try api.send("GET", "/v1/screens/sign-in", session: session)
        #expect(signedIn.bodyText.contains("Signed in as ann@example.com"))
        #expect(row(try Screen(jsonBytes: signedIn.body), "sign-in")?.enabled == false)
        // One revision and one feed entry for the whole event.
        let feed = try api.feed { $0.bodyText.contains(#""eventId":"try-2""#) }.json
        let events = feed.objectValue?["entries"]?.arrayValue?.compactMap { $0.objectValue?["event"]?.objectValue } ?? []
        #expect(events.filter { $0["row"] == "sign-in" }.count == 2)
        #expect(!feed.canonicalText.contains("correct horse") && !feed.canonicalText.contains("wrong horse"))

        // A retry after success replays the answer without a call.
        let replay = try signIn(api, session, password: "correct horse", eventID: "try-2")
        #expect(replay.body == right.body)
        #expect(backend.calls.withLock { $0.count } == 2)
    }

    /// A backend that is slow, down, answers 500, something not JSON, or what Tabula does not
    /// know: nothing changes, the problem names the cause, and the retry with the same
    /// `eventId` works once the backend does.
    @Test(arguments: StoreKind.allCases)
    func failuresChangeNothingAndTheRetryWorks(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let backend = try TestBackend()
        let api = try server(factory, backend, timeout: .milliseconds(300))
        defer { api.store.close() }
        let session = try api.newSession()
        let cases: [(TestBackend.Behaviour, Duration, String, String)] = [
            (.fixed(status: 200, body: "{}"), .seconds(1), "action-timeout", "within"),
            (.fixed(status: 500, body: #"{"error": "boom"}"#), .zero, "action-failed", "HTTP 500"),
            (.fixed(status: 200, body: "<html>"), .zero, "action-failed", "not JSON"),
            (.fixed(status: 200, body: #"{"state": {}, "redirect": "/"}"#), .zero, "action-failed", "redirect"),
            (.fixed(status: 200, body: #"{"state": {"noSuchKey": 1}}"#), .zero, "action-failed", "noSuchKey"),
            (.fixed(status: 200, body: #"{"state": {"signedIn": "yes"}}"#), .zero, "action-failed", "signedIn"),
            (.fixed(status: 200, body: #"{"errors": {"nowhere": "x"}}"#), .zero, "action-failed", "row \\\"nowhere"),
            (.fixed(status: 200, body: #"{"effects": [{"type": "navigate", "screen": "nowhere"}]}"#), .zero, "action-failed", "nowhere"),
            (.fixed(status: 200, body: #"{"effects": [{"type": "openURL", "url": "javascript:alert(1)"}]}"#), .zero, "action-failed", "scheme"),
            (
                .fixed(status: 200, body: #"{"effects": [{"type": "navigate", "screen": "message", "item": "no-such-message"}]}"#), .zero,
                "action-failed", "item \\\"no-such-message\\\" of \\\"messages\\\""
            ),
            // What the backend wrote is quoted clipped: a detail stays short whatever it sent.
            (.fixed(status: 200, body: #"{"\#(String(repeating: "m", count: 5_000))": 1}"#), .zero, "action-failed", "mmmm…"),
            (.fixed(status: 200, body: #"{"state": {"\#(String(repeating: "k", count: 5_000))": 1}}"#), .zero, "action-failed", "kkkk"),
            (.fixed(status: 200, body: #"{"errors": {"\#(String(repeating: "r", count: 5_000))": 5}}"#), .zero, "action-failed", "rrrr…"),
            // The session keeps the messages of `errors`: they count toward the state's size.
            (
                .fixed(status: 200, body: #"{"errors": {"password": "\#(String(repeating: "x", count: 70_000))"}}"#), .zero, "action-failed",
                "over the limit of 65536"
            ),
        ]
        for (behaviour, delay, slug, cause) in cases {
            backend.behaviour.withLock { $0 = behaviour }
            backend.delay.withLock { $0 = delay }
            let failed = try signIn(api, session, password: "correct horse", eventID: "once")
            #expect(failed.problemSlug == slug && failed.bodyText.contains(cause), "\(failed.status) \(failed.bodyText)")
            #expect(failed.status == (slug == "action-timeout" ? 504 : 502))
            #expect(failed.body.count < 2_048, "a detail of \(failed.body.count) bytes")
            #expect(try api.revision(session, screen: "sign-in") == 0, "nothing changed")
        }
        backend.delay.withLock { $0 = .zero }
        backend.behaviour.withLock { $0 = .example }
        let retried = try signIn(api, session, password: "correct horse", eventID: "once")
        #expect(retried.status == 200 && retried.json.objectValue?["toRevision"] == 1, "\(retried.bodyText)")

        // A backend that refuses the signature.
        backend.behaviour.withLock { $0 = .fixed(status: 401, body: "{}") }
        let refused = try signIn(api, try api.newSession(), password: "correct horse", eventID: "other")
        #expect(refused.status == 502 && refused.bodyText.contains("HTTP 401"))
    }

    /// A `navigate` effect to an item screen is checked on the state the answer makes: to
    /// an item the list holds, or one the answer's own state adds.
    @Test func aNavigationToAnItemLeadsToAnItemTheStateHolds() throws {
        let factory = try StoreFactory(.memory)
        let backend = try TestBackend()
        let api = try server(factory, backend)
        defer { api.store.close() }
        let session = try api.newSession()
        let added = #"{"id": "m-new", "subject": "New", "sender": "Ann", "date": "2026-11-30", "read": false, "flagged": false}"#
        let answers = [
            (#"{"effects": [{"type": "navigate", "screen": "message", "item": "m300"}]}"#, "m300"),
            (#"{"state": {"messages": [\#(added)]}, "effects": [{"type": "navigate", "screen": "message", "item": "m-new"}]}"#, "m-new"),
        ]
        for (index, (body, item)) in answers.enumerated() {
            backend.behaviour.withLock { $0 = .fixed(status: 200, body: body) }
            let answered = try signIn(api, session, password: "correct horse", eventID: "navigate-\(index)")
            #expect(answered.status == 200, "\(answered.bodyText)")
            #expect(answered.json.objectValue?["effects"] == [["type": "navigate", "screen": "message", "item": .string(item)]])
            let shown = try api.send("GET", "/v1/screens/message?item=\(item)", session: session)
            #expect(shown.status == 200, "the item the effect names is there: \(shown.bodyText)")
        }
        // The answer's state removes the item it navigates to: refused, and nothing kept.
        let revision = try api.revision(session, screen: "sign-in")
        backend.behaviour.withLock {
            $0 = .fixed(status: 200, body: #"{"state": {"messages": []}, "effects": [{"type": "navigate", "screen": "message", "item": "m-new"}]}"#)
        }
        let refused = try signIn(api, session, password: "correct horse", eventID: "navigate-gone")
        #expect(refused.status == 502 && refused.problemSlug == "action-failed" && refused.bodyText.contains("m-new"), "\(refused.bodyText)")
        #expect(try api.revision(session, screen: "sign-in") == revision)
        #expect(try api.send("GET", "/v1/screens/message?item=m-new", session: session).status == 200)
    }

    func server(_ factory: StoreFactory, _ backend: TestBackend?, configure: (inout ServiceConfiguration) -> Void) throws -> APITestServer {
        let catalogue = try APITestServer.fixtures()
        return try APITestServer(catalogue: catalogue, store: try factory.open(catalogue), configure: configure)
    }

    /// An `https` backend whose certificate a private CA signed (nginx's TLS in front of the
    /// test's backend): refused under the system's CAs, called once its CA is given.
    @Test func anHTTPSBackendIsTrustedThroughItsOwnAuthority() throws {
        let backend = try TestBackend()
        let certificates = try TestCertificates()
        let backendPort = try #require(backend.server?.port)
        let tls = try NginxProcess { port in
            """
            server {
                listen 127.0.0.1:\(port) ssl;
                ssl_certificate \(certificates.certificate);
                ssl_certificate_key \(certificates.key);
                location / { proxy_pass http://127.0.0.1:\(backendPort); proxy_http_version 1.1; proxy_set_header Connection ""; }
            }
            """
        }
        let url = "https://127.0.0.1:\(tls.port)"
        let untrusted = try server(try StoreFactory(.memory), nil) { configuration in
            configuration.actions = ActionSettings(url: url, secret: TestBackend.secret)
        }
        let refused = try signIn(untrusted, try untrusted.newSession(), password: "correct horse")
        #expect(refused.status == 502 && refused.problemSlug == "action-failed", "\(refused.bodyText)")
        #expect(backend.calls.withLock { $0.isEmpty }, "no call gets past a certificate the system's CAs do not vouch for")

        let trusted = try server(try StoreFactory(.memory), nil) { configuration in
            configuration.actions = ActionSettings(url: url, secret: TestBackend.secret, certificateAuthorities: certificates.authority)
        }
        let session = try trusted.newSession()
        let signedIn = try signIn(trusted, session, password: "correct horse")
        #expect(signedIn.status == 200 && signedIn.json.objectValue?["submit"] == ["form": "signin", "valid": true], "\(signedIn.bodyText)")
        #expect(backend.calls.withLock { $0.count } == 1)
        #expect(try trusted.revision(session, screen: "sign-in") == 1)
    }

    @Test func aBackendThatIsDownOrMissingIsAProblem() throws {
        let nobody = try TestBackend()
        let url = nobody.url
        nobody.server?.shutdown()
        let api = try server(try StoreFactory(.memory), nil) { configuration in
            configuration.actions = ActionSettings(url: url, secret: TestBackend.secret)
        }
        let session = try api.newSession()
        let down = try signIn(api, session, password: "correct horse", eventID: "e")
        #expect(down.status == 502 && down.problemSlug == "action-failed", "\(down.bodyText)")
        #expect(try api.revision(session, screen: "sign-in") == 0)

        let unconfigured = try server(try StoreFactory(.memory), nil) { _ in }
        let other = try unconfigured.newSession()
        let missing = try signIn(unconfigured, other, password: "correct horse")
        #expect(missing.status == 503 && missing.problemSlug == "actions-not-configured", "\(missing.bodyText)")
        // An event that stops before the call needs no backend.
        let invalid = try unconfigured.send("POST", Self.signIn, session: other, json: #"{"row": "sign-in"}"#)
        #expect(invalid.status == 200 && invalid.json.objectValue?["submit"] == ["form": "signin", "valid": false])
    }

    /// A retry while the call is in flight waits for it: one call, one answer; meanwhile
    /// another event commits, and the answer is applied to the newer state.
    @Test(arguments: [StoreKind.memory, .sqlite])
    func aRetryInFlightWaitsAndTheAnswerMeetsTheNewerState(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let backend = try TestBackend()
        let api = try server(factory, backend)
        defer { api.store.close() }
        let session = try api.newSession()
        let gate = DispatchSemaphore(value: 0)
        backend.gate.withLock { $0 = gate }
        let answers = Locked<[RawHTTPResponse]>([])
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                if let answer = try? self.signIn(api, session, password: "correct horse", eventID: "held", revision: 0) {
                    answers.withLock { $0.append(answer) }
                }
            }
        }
        _ = eventually(within: 10) { !backend.calls.withLock { $0.isEmpty } }
        let switched = try api.send("POST", "/v1/screens/sign-in/switch", session: session, json: #"{"row": "remember", "isOn": false}"#)
        #expect(switched.status == 200 && switched.json.objectValue?["toRevision"] == 1, "\(switched.bodyText)")
        gate.signal()
        gate.signal()
        #expect(group.wait(timeout: .now() + 20) == .success)
        let both = answers.withLock { $0 }
        #expect(both.count == 2 && both.allSatisfy { $0.status == 200 })
        #expect(Set(both.map(\.body)).count == 1, "the retry got the first one's answer")
        #expect(backend.calls.withLock { $0.count } == 1, "one call")
        let answer = try #require(both.first?.json.objectValue)
        #expect(answer["fromRevision"] == 0 && answer["toRevision"] == 2, "applied after the switch")
        let changes = try ChangeSet(json: try #require(answer["changes"]))
        #expect(changes.rows.updated.contains { $0.row.id == "remember" }, "the copy at 0 learns of the switch too")
        let remember = row(try screen(api, session), "remember")
        #expect(remember?.content == .titleSwitch(title: "Keep Me Signed In", isOn: false))
    }

    /// When the session changed during the call so that the event no longer reaches it (its
    /// submit now fails, or its button is now disabled), none of the answer is kept: 502,
    /// the backend's failure rather than a refusal of the client's event (the backend acted
    /// on it), and nothing changes.
    @Test(arguments: [
        (#""validate": [{"when": "!strict", "message": "Not while strict"}]"#, ""),
        (#""validate": []"#, #", "enabledWhen": "!strict""#),
    ])
    func anAnswerTheEventNoLongerReachesIsNotKept(rule: String, button: String) throws {
        let definition = #"""
            {"id": "strict", "title": "Strict", "state": {"name": "Ann", "strict": false},
             "sections": [{"id": "form", "form": "f", "rows": [
               {"id": "name", "kind": "textField", "title": "Name", "text": "{{name}}", "onEdit": {"set": "name"}, \#(rule)},
               {"id": "strict", "kind": "titleSwitch", "title": "Strict", "isOn": "strict", "onSwitch": {"set": "strict"}},
               {"id": "go", "kind": "button", "title": "Go", "onSelect": [{"submit": "f"}, {"call": "go"}]\#(button)}]}]}
            """#
        let (refused, api, session, _) = try answerWhileAnotherEventCommits(
            definition, event: ("/v1/screens/strict/selection", #"{"row": "go", "eventId": "go-1"}"#),
            other: ("/v1/screens/strict/switch", #"{"row": "strict", "isOn": true}"#), backendAnswer: #"{"state": {"name": "from the backend"}}"#)
        #expect(refused.status == 502 && refused.problemSlug == "action-failed" && refused.bodyText.contains("no longer reaches"), "\(refused.bodyText)")
        #expect(try api.revision(session, screen: "strict") == 1, "only the switch")
        #expect(!(try api.send("GET", "/v1/screens/strict", session: session).bodyText.contains("from the backend")))
    }

    /// An item the actions before a call append is sent to the backend with its generated
    /// id; when another event commits while the backend answers, the event decided again
    /// still stores that id, so that the backend's effects may name it.
    @Test func anItemAppendedBeforeACallKeepsTheIDTheBackendWasSent() throws {
        let definition = #"""
            {"id": "tasks", "title": "Tasks", "state": {"other": false, "tasks": {"type": "list", "item": {"title": "string"}, "default": []}},
             "sections": [{"id": "list", "rows": [
               {"id": "task-{{item.id}}", "kind": "basic", "forEach": "tasks", "title": "{{item.title}}"},
               {"id": "other", "kind": "titleSwitch", "title": "Other", "isOn": "other", "onSwitch": {"set": "other"}},
               {"id": "add", "kind": "button", "title": "Add", "onSelect": [{"append": {"to": "tasks", "item": {"title": "New"}}}, {"call": "created"}]}]}]}
            """#
        let (answer, api, session, backend) = try answerWhileAnotherEventCommits(
            definition, event: ("/v1/screens/tasks/selection", #"{"row": "add"}"#),
            other: ("/v1/screens/tasks/switch", #"{"row": "other", "isOn": true}"#), backendAnswer: "{}")
        #expect(answer.status == 200, "\(answer.bodyText)")
        let sent = try JSONParser().parse(try #require(backend.calls.withLock { $0.first }).body)
        let sentID = try #require(sent.objectValue?["state"]?.objectValue?["tasks"]?.arrayValue?.last?.objectValue?["id"]?.stringValue)
        let shown = try api.send("GET", "/v1/screens/tasks", session: session).json
        let rows = shown.objectValue?["sections"]?.arrayValue?.first?.objectValue?["rows"]?.arrayValue ?? []
        let ids: [String] = rows.compactMap { $0.objectValue?["id"]?.stringValue }
        #expect(ids.contains("task-\(sentID)"), "\(ids)")
    }

    /// Sends `event` to a server of the one screen `definition`, whose backend answers
    /// `backendAnswer` only once `other`, another event of the session, has committed: the
    /// event's answer, the server, the session and the backend.
    func answerWhileAnotherEventCommits(
        _ definition: String, event: (path: String, json: String), other: (path: String, json: String), backendAnswer: String
    ) throws -> (RawHTTPResponse, APITestServer, String, TestBackend) {
        let catalogue = try Catalogue.load([DefinitionFile(name: "screen.json", bytes: Array(definition.utf8))])
        let backend = try TestBackend()
        backend.behaviour.withLock { $0 = .fixed(status: 200, body: backendAnswer) }
        let gate = DispatchSemaphore(value: 0)
        backend.gate.withLock { $0 = gate }
        let api = try APITestServer(catalogue: catalogue) { configuration in
            configuration.actions = ActionSettings(url: backend.url, secret: TestBackend.secret)
        }
        let session = try api.newSession()
        let answer = Locked<RawHTTPResponse?>(nil)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            answer.withLock { $0 = try? api.send("POST", event.path, session: session, json: event.json) }
        }
        _ = eventually(within: 10) { !backend.calls.withLock { $0.isEmpty } }
        let committed = try api.send("POST", other.path, session: session, json: other.json)
        #expect(committed.status == 200, "\(committed.bodyText)")
        gate.signal()
        #expect(group.wait(timeout: .now() + 20) == .success)
        return (try #require(answer.withLock { $0 }), api, session, backend)
    }

    /// A signature's time that is not plain digits, or would overflow, is refused without a
    /// trap; one as sent verifies.
    @Test func signaturesAreCheckedAsSent() throws {
        let body = Array(#"{"a": 1}"#.utf8)
        let now = 1_795_900_000
        let header = try #require(ActionSignature.header(secret: "s", time: now, body: body))
        #expect(ActionSignature.verify(header, secret: "s", body: body, now: now + 299))
        #expect(!ActionSignature.verify(header, secret: "s", body: body, now: now + 301))
        #expect(!ActionSignature.verify(header, secret: "t", body: body, now: now))
        #expect(!ActionSignature.verify(header, secret: "s", body: body + [0x20], now: now))
        let signature = String(header.split(separator: ",")[1])
        for time in ["-9223372036854775808", "9223372036854775807", "+\(now)", "", "1e9"] {
            #expect(!ActionSignature.verify("t=\(time),\(signature)", secret: "s", body: body, now: now))
        }
        #expect(ActionSignature.verify("v1=00,\(header)", secret: "s", body: body, now: now), "any v1 may match")
    }

    /// `/metrics` times each call from its send to its answer, by action; a call refused
    /// as busy was never sent, so it is counted and not timed.
    @Test func callsAreTimedFromTheirSend() throws {
        let backend = try TestBackend()
        let api = try server(try StoreFactory(.memory), backend)
        let family = "tabula_action_call_duration_seconds"
        #expect(try api.metrics(showing: "# TYPE \(family) histogram").contains("# TYPE \(family) histogram"))
        backend.delay.withLock { $0 = .milliseconds(150) }
        #expect(try signIn(api, try api.newSession(), password: "correct horse").status == 200)
        let text = try api.metrics(showing: #"\#(family)_count{action="sign-in"} 1"#)
        #expect(text.contains(#"\#(family)_count{action="sign-in"} 1"#), "\(text)")
        #expect(text.contains(#"\#(family)_bucket{action="sign-in",le="0.1"} 0"#), "the backend's pause is in it")
        #expect(text.contains(#"\#(family)_bucket{action="sign-in",le="+Inf"} 1"#))
        let sum = text.split(separator: "\n").first { $0.hasPrefix(#"\#(family)_sum{action="sign-in"} "#) }
        #expect(sum.flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 >= 0.15 } == true, "\(sum ?? "no sum")")
    }

    @Test func callsBeyondTheLimitAreRefused() throws {
        let backend = try TestBackend()
        let api = try server(try StoreFactory(.memory), backend, concurrency: 1)
        let gate = DispatchSemaphore(value: 0)
        backend.gate.withLock { $0 = gate }
        let first = try api.newSession()
        let held = Locked<RawHTTPResponse?>(nil)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            held.withLock { $0 = try? self.signIn(api, first, password: "correct horse") }
        }
        _ = eventually(within: 10) { !backend.calls.withLock { $0.isEmpty } }
        let busy = try signIn(api, try api.newSession(), password: "correct horse")
        #expect(busy.status == 503 && busy.problemSlug == "actions-busy" && busy.header("Retry-After") == "1", "\(busy.bodyText)")
        gate.signal()
        #expect(group.wait(timeout: .now() + 20) == .success)
        #expect(held.withLock { $0?.status } == 200)
        let metrics = try api.metrics(showing: #"tabula_action_calls_total{action="sign-in",outcome="busy"} 1"#)
        #expect(metrics.contains(#"outcome="busy"} 1"#))
        #expect(metrics.contains(#"tabula_action_call_duration_seconds_count{action="sign-in"} 1"#), "only the call sent is timed")
    }

    /// A password sent with a submit that calls the backend is in no database file, no WAL,
    /// no feed entry, no session record, no screen, no stored answer.
    @Test(arguments: [StoreKind.sqlite, .postgres])
    func theSecretSentToTheBackendIsNeverKept(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let backend = try TestBackend()
        let api = try server(factory, backend)
        let (session, id) = try session(api)
        let secret = "Pw-\(UUID().uuidString.prefix(12))"
        backend.behaviour.withLock { $0 = .fixed(status: 200, body: #"{"errors": {"password": "Wrong password"}}"#) }
        let answer = try signIn(api, session, password: secret, eventID: "s-1")
        #expect(answer.status == 200)
        #expect(try #require(backend.calls.withLock { $0.first }).body.starts(with: Array("{".utf8)))
        #expect(String(decoding: try #require(backend.calls.withLock { $0.first }).body, as: UTF8.self).contains(secret))
        let replay = try signIn(api, session, password: secret, eventID: "s-1")
        let texts = [
            answer.bodyText, replay.bodyText, try api.send("GET", "/v1/screens/sign-in", session: session).bodyText,
            try api.send("GET", "/v1/feed", headers: [BackendAPITests.authorization]).bodyText,
            try api.send("GET", "/v1/sessions/\(id)", headers: [BackendAPITests.authorization]).bodyText,
        ]
        for text in texts { #expect(!text.contains(secret)) }
        let directory: URL
        switch kind {
        case .postgres:
            let cluster = try PostgresCluster.shared.get()
            _ = try cluster.query("CHECKPOINT")
            directory = cluster.directory
        default:
            directory = factory.directory
        }
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        var read = 0
        while let file = files?.nextObject() as? URL {
            guard let bytes = try? Data(contentsOf: file) else { continue }
            read += 1
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file.path) holds the secret")
        }
        #expect(read > 0)
        api.store.close()
    }
}

/// `tabula serve` as a process with a backend: the secret a submit sends to the backend is in
/// no log line (at the most talkative level), no database file and no WAL; libcurl is
/// mapped only when a backend is configured.
@Suite struct BackendActionProcessTests {
    func post(_ port: UInt16, _ path: String, session: String? = nil, _ body: String) throws -> RawHTTPResponse {
        let connection = try RawHTTPConnection(port: port)
        let header = session.map { "X-Session: \($0)\r\n" } ?? ""
        try connection.send(
            "POST \(path) HTTP/1.1\r\nHost: x\r\n\(header)Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return try connection.readResponse()
    }

    @Test func theSecretIsInNoLogAndNoFileAndLibcurlLoadsOnlyForABackend() throws {
        let plain = try ServerProcess(arguments: ["--store", "memory"])
        #expect(!(try ServeProcessTests().mappedLibraries(plain)).contains("libcurl"))

        let backend = try TestBackend()
        let server = try ServerProcess(
            arguments: ["--store", "sqlite", "--log-level", "trace", "--actions-url", backend.url, "--actions-secret", TestBackend.secret])
        #expect(try ServeProcessTests().mappedLibraries(server).contains("libcurl.so.4"))
        let created = try post(server.port, "/v1/sessions", "{}")
        let session = try #require(created.json.objectValue?["session"]?.stringValue)
        let secret = "Pw-\(UUID().uuidString.prefix(12))"
        for (eventID, password) in [("first", secret), ("second", "correct horse")] {
            let answer = try post(
                server.port, "/v1/screens/sign-in/selection", session: session,
                #"{"row": "sign-in", "eventId": "\#(eventID)", "values": {"email": "ann@example.com", "password": "\#(password)"}}"#)
            #expect(answer.status == 200, "\(answer.bodyText)")
        }
        #expect(backend.calls.withLock { $0.count } == 2)
        // While it runs (the WAL holds the commits), and once it stopped.
        func expectNoPassword(_ moment: String) throws {
            for password in [secret, "correct horse"] {
                #expect(!server.log.contains(password), "the log holds a password \(moment)")
                for file in try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory.path) {
                    let bytes = try Data(contentsOf: server.dataDirectory.appendingPathComponent(file))
                    #expect(bytes.range(of: Data(password.utf8)) == nil, "\(file) holds a password \(moment)")
                }
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory.path).contains { $0.hasSuffix("-wal") })
        try expectNoPassword("while serving")
        server.signal(SIGTERM)
        _ = server.waitForExit(seconds: 10)
        #expect(server.log.contains("/v1/screens/sign-in/selection 200"), "the log is talkative: \(server.log.suffix(400))")
        try expectNoPassword("after stopping")
    }
}
