import Foundation
import Synchronization
import TabulaClientURLSession
import TabulaModel
import TabulaTestSupport
import Testing

@testable import TabulaClient

/// A screen handle, on the real URLSession transport, against a service that misbehaves
/// (``ScriptedServer``): what it answers may be huge, endless, garbled or inconsistent. The
/// handle neither traps, nor holds memory or a connection without bound, nor keeps a copy
/// the service does not have. (Deadlines are generous: the whole suite, run in parallel on
/// two cores, can keep a test's tasks waiting for a thread for a long while.)
@Suite struct HostileServerTests {
    static func screen(revision: Int, rows: [String], definition: String = "d1") -> String {
        let rows = rows.map { #"{"id":"\#($0)","kind":"basic","title":"\#($0)"}"# }.joined(separator: ",")
        return #"{"id":"x","title":"X","revision":\#(revision),"definition":"\#(definition)","sections":[{"id":"s","rows":[\#(rows)]}]}"#
    }

    static let noChanges = #"{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}"#

    /// A stream that sends `text`, then a heartbeat every 50 ms until the client goes.
    static func staysOpen(_ text: String = "") -> ScriptedServer.Answer {
        .streamed(status: 200, contentType: "text/event-stream") { send in
            guard send(Array(text.utf8)) else { return }
            while send(Array(":\n\n".utf8)) { usleep(50_000) }
        }
    }

    /// A screen `x` answered by `GET`, and `stream` for its stream.
    static func service(screen: String = screen(revision: 0, rows: ["a"]), stream: @escaping @Sendable () -> ScriptedServer.Answer) throws
        -> ScriptedServer
    {
        try ScriptedServer { request in
            switch (request.method, request.path) {
            case ("GET", "/v1/screens/x"): .json(screen)
            case ("GET", "/v1/screens/x/stream"): stream()
            default: .json(#"{"type":"about:blank","title":"Not Found","status":404}"#, status: 404)
            }
        }
    }

    static func configuration(heartbeat: Duration = .milliseconds(300), maximumWait: Duration = .seconds(8)) -> TabulaSession.Configuration {
        var configuration = TabulaSession.Configuration()
        configuration.heartbeat = heartbeat
        configuration.maximumReconnectDelay = maximumWait
        configuration.requestTimeout = .seconds(2)
        return configuration
    }

    static func handle(_ server: ScriptedServer, _ configuration: TabulaSession.Configuration = configuration()) -> (TabulaSession, ScreenHandle) {
        let session = TabulaSession(baseURL: server.url, token: "t", configuration: configuration, transport: URLSessionTransport())
        return (session, session.screen("x"))
    }

    static func streams(_ server: ScriptedServer) -> Int { server.count("GET", "/v1/screens/x/stream") }

    @Test func theBackoffStaysWithinItsMaximumWhateverItsFirstWait() {
        for initial in [Duration.milliseconds(Int.max), .seconds(Int64.max), .zero, .milliseconds(250)] {
            var backoff = Backoff(initial: initial, maximum: .seconds(8))
            for _ in 0..<100 { #expect(backoff.next() <= .seconds(8)) }
        }
        var growing = Backoff(initial: .milliseconds(250), maximum: .seconds(8))
        let waits = (0..<8).map { _ in growing.next() }
        #expect(waits[0] <= .milliseconds(250) && waits[7] >= .seconds(6))
    }

    /// `retry: 0` would reconnect at once, forever; a huge one is as long as the maximum.
    @Test(.timeLimit(.minutes(3))) func aStreamsRetryIsKeptWithinBounds() async throws {
        let zero = try Self.service { .streamed(status: 200, contentType: "text/event-stream") { _ = $0(Array("retry: 0\n\n".utf8)) } }
        defer { zero.close() }
        // Connections that fail at once (heartbeats too long to count them as working): the
        // waits double from the shortest, so a few a second at first and fewer after, however
        // long the test's tasks wait for a thread; at once, forever, would be thousands.
        let (session, handle) = Self.handle(zero, Self.configuration(heartbeat: .seconds(60)))
        defer { session.close() }
        let started = ContinuousClock.now
        await handle.start()
        try await Task.sleep(for: .seconds(1))
        await handle.close()
        let elapsed = Double((ContinuousClock.now - started).components.seconds) + 1
        #expect(Double(Self.streams(zero)) < 8 + elapsed, "\(Self.streams(zero)) streams in \(elapsed) s")

        let huge = try Self.service {
            .streamed(status: 200, contentType: "text/event-stream") { _ = $0(Array("retry: 9223372036854775807\n\n".utf8)) }
        }
        defer { huge.close() }
        // Twenty reconnections: the waits have doubled past any Duration by then, had they
        // started from the stream's retry: rather than the maximum.
        try await Self.follow(huge, Self.configuration(maximumWait: .milliseconds(50)), until: "reconnections within the maximum wait", seconds: 90) {
            Self.streams(huge) > 20
        }
    }

    /// A refused stream's body is read up to a problem document's size, and no longer than a
    /// request may take: the handle gives the stream up and connects again.
    @Test(.timeLimit(.minutes(3))) func anEndlessProblemIsNotReadWhole() async throws {
        let server = try Self.service {
            .streamed(status: 500, contentType: "application/problem+json") { send in
                let chunk = [UInt8](repeating: 0x41, count: 64 * 1024)
                while send(chunk) { usleep(2_000) }
            }
        }
        defer { server.close() }
        try await Self.follow(server, until: "a second stream", seconds: 90) { Self.streams(server) > 1 }
    }

    /// A line that never ends is not kept whole (the event outgrows its bound), and its
    /// bytes are no sign of life (the heartbeat's watchdog ends a stream that sends nothing
    /// else).
    @Test(.timeLimit(.minutes(3))) func aLineWithoutAnEndEndsTheStream() async throws {
        let flood = try Self.service {
            .streamed(status: 200, contentType: "text/event-stream") { send in
                // Fast, as a fast network is (a loopback flood would outrun FoundationNetworking
                // itself, which reads all it can, before and after a cancellation).
                guard send(Array("data: ".utf8)) else { return }
                let chunk = [UInt8](repeating: 0x41, count: 64 * 1024)
                while send(chunk) { usleep(2_000) }
            }
        }
        defer { flood.close() }
        // A heartbeat so long that only the bound on an event can end the first stream.
        try await Self.follow(flood, Self.configuration(heartbeat: .seconds(60)), until: "a stream after the flooded one", seconds: 90) {
            Self.streams(flood) > 1
        }

        let trickle = try Self.service {
            .streamed(status: 200, contentType: "text/event-stream") { send in
                guard send(Array(":\n\ndata: ".utf8)) else { return }
                while send([0x41]) { usleep(20_000) }
            }
        }
        defer { trickle.close() }
        try await Self.follow(trickle, until: "a stream after the trickling one") { Self.streams(trickle) > 1 }
    }

    /// A `changes` event that is not JSON leaves the copy behind: the screen is fetched again.
    @Test(.timeLimit(.minutes(3))) func aGarbledUpdateFetchesTheScreen() async throws {
        let server = try Self.service { Self.staysOpen("event: changes\ndata: {\"fromRevision\":0,\"toRevision\":1,\n\n") }
        defer { server.close() }
        try await Self.follow(server, until: "the screen fetched again") { server.count("GET", "/v1/screens/x") >= 2 }
    }

    /// The service went back to an older revision (a store restored from a backup): its
    /// `409 future-revision` makes the handle take its screen, revision lower and all.
    @Test(.timeLimit(.minutes(3))) func aCopyAheadOfTheServiceIsReplacedByItsScreen() async throws {
        let revision = Mutex(10)
        let server = try ScriptedServer { request in
            let current = revision.withLock { $0 }
            switch (request.method, request.path) {
            case ("GET", "/v1/screens/x"): return .json(Self.screen(revision: current, rows: current == 10 ? ["a", "b"] : ["c"]))
            case ("GET", "/v1/screens/x/stream"): return Self.staysOpen()
            default:
                return .whole(
                    status: 409, contentType: "application/problem+json",
                    body: Array(#"{"type":"urn:tabula:problem:future-revision","title":"Future Revision","status":409,"currentRevision":3}"#.utf8))
            }
        }
        defer { server.close() }
        let (session, handle) = Self.handle(server)
        defer { session.close() }
        await handle.start()
        try await Self.waitFor("the first screen", seconds: 90) { server.count("GET", "/v1/screens/x") >= 1 }
        try await Task.sleep(for: .milliseconds(200))
        revision.withLock { $0 = 3 }
        await handle.send(.toggle(row: "a", isOn: true))
        let shown = try await Self.screen(of: handle, atRevision: 3)
        await handle.close()
        #expect(shown?.revision == 3 && shown?.sections.first?.rows.map(\.id) == ["c"], "\(String(describing: shown))")
    }

    /// The stream, named the copy at revision 10, sends the screen at revision 3: the service
    /// is behind the copy, and its screen replaces it.
    @Test(.timeLimit(.minutes(3))) func aStreamsScreenOlderThanTheCopyItWasNamedReplacesIt() async throws {
        let server = try ScriptedServer { request in
            switch (request.method, request.path) {
            case ("GET", "/v1/screens/x"): .json(Self.screen(revision: 10, rows: ["a", "b"]))
            case ("GET", "/v1/screens/x/stream") where request.headers["last-event-id"] == "d1:10":
                Self.staysOpen("event: screen\ndata: \(Self.screen(revision: 3, rows: ["c"]))\n\n")
            default: .json(#"{"type":"about:blank","title":"Not Found","status":404}"#, status: 404)
            }
        }
        defer { server.close() }
        let shown = try await Self.screen(following: server, atRevision: 3)
        #expect(shown?.revision == 3 && shown?.sections.first?.rows.map(\.id) == ["c"], "\(String(describing: shown))")
    }

    /// A large event on a slow link (one line, coming in parts for longer than the heartbeat's
    /// watchdog waits) is heard: the stream is not cut in the middle of it.
    @Test(.timeLimit(.minutes(3))) func aLargeEventOnASlowLinkIsNotCut() async throws {
        let title = String(repeating: "t", count: 200 * 1024)
        let event =
            Array("event: screen\ndata: ".utf8)
            + Array(
                #"{"id":"x","title":"X","revision":1,"definition":"d1","sections":[{"id":"s","rows":[{"id":"a","kind":"basic","title":"\#(title)"}]}]}"#.utf8)
            + Array("\n\n".utf8)
        let server = try Self.service {
            .streamed(status: 200, contentType: "text/event-stream") { send in
                // 8 KiB every 50 ms: about 1.3 s for the event, past twice the 300 ms heartbeat.
                var offset = 0
                while offset < event.count {
                    guard send(Array(event[offset..<min(offset + 8 * 1024, event.count)])) else { return }
                    offset += 8 * 1024
                    usleep(50_000)
                }
                while send(Array(":\n\n".utf8)) { usleep(100_000) }
            }
        }
        defer { server.close() }
        #expect(try await Self.screen(following: server, atRevision: 1)?.revision == 1)
    }

    /// An answer that does not end is not collected without bound: the request fails.
    @Test(.timeLimit(.minutes(3))) func anEndlessAnswerFails() async throws {
        let server = try ScriptedServer { _ in
            .streamed(status: 200, contentType: "application/json") { send in
                let chunk = [UInt8](repeating: 0x20, count: 64 * 1024)
                while send(chunk) { usleep(1_000) }
            }
        }
        defer { server.close() }
        let transport = URLSessionTransport()
        defer { transport.close() }
        do {
            let answer = try await transport.send(HTTPRequest(method: "GET", url: server.url + "/endless", idleTimeout: .seconds(60)))
            Issue.record("an endless answer came back with \(answer.body.count) bytes")
        } catch {
            #expect("\(error)".contains("larger than"), "\(error)")
        }
    }

    /// An answer from revision 5 to 2 is no update: refused, and the copy stays at 5.
    @Test(.timeLimit(.minutes(3))) func anAnswerNeverTakesTheCopyBackwards() async throws {
        let server = try ScriptedServer { request in
            switch (request.method, request.path) {
            case ("GET", "/v1/screens/x"): .json(Self.screen(revision: 5, rows: ["a"]))
            case ("GET", "/v1/screens/x/stream"): Self.staysOpen()
            default: .json(#"{"fromRevision":5,"toRevision":2,"definition":"d1","changes":\#(Self.noChanges)}"#)
            }
        }
        defer { server.close() }
        let (session, handle) = Self.handle(server)
        defer { session.close() }
        let refusal = Self.firstRefusal(of: handle)
        await handle.start()
        await handle.send(.deletion(row: "a"))
        let refused = await refusal.value
        #expect(refused != nil)
        #expect(await handle.screen?.revision == 5)
        await handle.close()
    }

    /// A change set that deletes one row twice (a batch a table view refuses) is not applied:
    /// the handle fetches the screen again, and every screen it publishes keeps the identity
    /// rules.
    @Test(.timeLimit(.minutes(3))) func anInconsistentChangeSetIsNotPublished() async throws {
        let p00 = #"{"section":0,"row":0}"#
        let changes =
            #"{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"rows":{"deleted":[\#(p00),\#(p00)],"inserted":[{"section":0,"row":1,"model":{"id":"b","kind":"basic","title":"again"}}],"moved":[],"updated":[]}}"#
        let server = try Self.service(screen: Self.screen(revision: 0, rows: ["a", "b", "c"])) {
            Self.staysOpen("event: changes\ndata: {\"fromRevision\":0,\"toRevision\":1,\"definition\":\"d1\",\"changes\":\(changes)}\n\n")
        }
        defer { server.close() }
        let (session, handle) = Self.handle(server)
        defer { session.close() }
        let published = Task { await handle.updates.prefix(3).reduce(into: [ScreenUpdate]()) { $0.append($1) } }
        await handle.start()
        try await Self.waitFor("the screen fetched again", seconds: 90) { server.count("GET", "/v1/screens/x") >= 2 }
        await handle.close()
        for update in await published.value {
            if case .changes(_, let screen) = update { Issue.record("published \(screen.sections.map { $0.rows.map(\.id) })") }
        }
    }

    /// What the service gives and a header then carries must be one a header can carry: a
    /// token with a line break is refused when the session is made, and a definition id with
    /// a control character names no copy to the stream.
    @Test(.timeLimit(.minutes(3))) func whatTheServiceGivesGoesIntoHeadersOnlyWhenSafe() async throws {
        let server = try Self.service(screen: Self.screen(revision: 0, rows: ["a"], definition: "d1\\u0007")) { Self.staysOpen() }
        defer { server.close() }
        let tokens = try ScriptedServer { _ in .json(#"{"session":"tok\r\nX-Evil: 1","id":"s_aaaaaaaaaaaaaaaaaaaa","revision":0,"client":{}}"#, status: 201) }
        defer { tokens.close() }
        let transport = URLSessionTransport()
        defer { transport.close() }
        do {
            _ = try await TabulaSession.create(baseURL: tokens.url, transport: transport)
            Issue.record("a token with a line break was taken")
        } catch {
            #expect("\(error)".contains("token"), "\(error)")
        }

        let (session, handle) = Self.handle(server)
        defer { session.close() }
        await handle.start()
        try await Self.waitFor("the stream", seconds: 90) { Self.streams(server) >= 1 }
        await handle.close()
        let stream = try #require(server.received.first { $0.path == "/v1/screens/x/stream" })
        #expect(stream.headers["last-event-id"] == nil && stream.headers["x-session"] == "t")
    }

    /// A redirect is not followed: the session's token goes to no other origin.
    @Test(.timeLimit(.minutes(3))) func aRedirectDoesNotCarryTheTokenElsewhere() async throws {
        let elsewhere = try ScriptedServer { _ in .json(Self.screen(revision: 0, rows: ["a"])) }
        defer { elsewhere.close() }
        let redirecting = try ScriptedServer { request in
            .raw(Array("HTTP/1.1 302 Found\r\nLocation: \(elsewhere.url + request.target)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        }
        defer { redirecting.close() }
        let (session, handle) = Self.handle(redirecting)
        defer { session.close() }
        await handle.start()
        try await Self.waitFor("the screen asked for again", seconds: 90) { redirecting.count("GET", "/v1/screens/x") >= 2 }
        await handle.close()
        #expect(elsewhere.received.isEmpty, "\(elsewhere.received.map(\.target))")
    }

    /// A large answer arrives whole. (Its parts are appended in place: copying the body for
    /// each part took seconds for tens of megabytes.)
    @Test(.timeLimit(.minutes(3))) func aLargeAnswerArrivesWhole() async throws {
        let size = 32 << 20
        let server = try ScriptedServer { _ in .whole(status: 200, contentType: "application/octet-stream", body: [UInt8](repeating: 0x41, count: size)) }
        defer { server.close() }
        let transport = URLSessionTransport()
        defer { transport.close() }
        let answer = try await transport.send(HTTPRequest(method: "GET", url: server.url + "/big", headers: [], body: nil, idleTimeout: .seconds(60)))
        #expect(answer.status == 200 && answer.body.count == size && answer.body.allSatisfy { $0 == 0x41 })
    }

    /// A `503` event is sent again after its `Retry-After` (two seconds here, where the backoff
    /// alone would wait a fifth of one), and a session refused with `429` is asked for again
    /// after its own.
    @Test(.timeLimit(.minutes(3))) func aRefusalsRetryAfterIsWaitedFor() async throws {
        let arrivals = Mutex<[String: [ContinuousClock.Instant]]>([:])
        let server = try ScriptedServer { request in
            let count = arrivals.withLock { arrivals in
                arrivals[request.path, default: []].append(.now)
                return arrivals[request.path, default: []].count
            }
            let busy = { (status: Int) in
                ScriptedServer.Answer.raw(
                    Array(
                        "HTTP/1.1 \(status) Busy\r\nContent-Type: application/problem+json\r\nRetry-After: 2\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
                            .utf8))
            }
            switch (request.method, request.path) {
            case ("POST", "/v1/sessions"): return count == 1 ? busy(429) : .json(#"{"session":"t2"}"#, status: 201)
            case ("GET", "/v1/screens/x"): return .json(Self.screen(revision: 0, rows: ["a"]))
            case ("GET", "/v1/screens/x/stream"): return Self.staysOpen()
            case ("POST", "/v1/screens/x/deletion"):
                return count == 1 ? busy(503) : .json(#"{"fromRevision":0,"toRevision":1,"definition":"d1","changes":\#(Self.noChanges)}"#)
            default: return .json(#"{"type":"about:blank","title":"Not Found","status":404}"#, status: 404)
            }
        }
        defer { server.close() }
        let gap = { (path: String) -> Duration? in
            arrivals.withLock { arrivals in arrivals[path].flatMap { $0.count >= 2 ? $0[1] - $0[0] : nil } }
        }

        let created = try await TabulaSession.create(baseURL: server.url, configuration: Self.configuration(), transport: URLSessionTransport())
        defer { created.close() }
        #expect(created.token == "t2")
        #expect(try #require(gap("/v1/sessions")) >= .milliseconds(1990))

        let (session, handle) = Self.handle(server)
        defer { session.close() }
        await handle.start()
        await handle.send(.deletion(row: "a"))
        #expect(try await Self.screen(of: handle, atRevision: 1)?.revision == 1)
        #expect(try #require(gap("/v1/screens/x/deletion")) >= .milliseconds(1990))
        await handle.close()
    }

    /// The handle's ``ScreenHandle/Connection`` says the service fails while it does (a
    /// `503`, a portal's page for the screen or for its stream), and that it is back once it
    /// answers; a stream that fails keeps it `retrying` while events get their answers. Each
    /// reader of its changes gets them from the state at the time, until the handle ends.
    @Test(.timeLimit(.minutes(3))) func theConnectionSaysWhetherTheServiceAnswers() async throws {
        let portal = ScriptedServer.Answer.whole(status: 200, contentType: "text/html", body: Array("<html>Sign in to the Wi-Fi</html>".utf8))
        let screenFailure = Mutex<ScriptedServer.Answer?>(
            .json(#"{"type":"urn:tabula:problem:store-unavailable","title":"Service Unavailable","status":503}"#, status: 503))
        let streamFailure = Mutex<ScriptedServer.Answer?>(nil)
        let cut = Mutex(false)
        let server = try ScriptedServer { request in
            switch (request.method, request.path) {
            case ("GET", "/v1/screens/x"): return screenFailure.withLock { $0 } ?? .json(Self.screen(revision: 0, rows: ["a", "b"]))
            case ("GET", "/v1/screens/x/stream"):
                if let failure = streamFailure.withLock({ $0 }) { return failure }
                return .streamed(status: 200, contentType: "text/event-stream") { send in
                    guard send(Array("retry: 300\n\n".utf8)) else { return }
                    while !cut.withLock({ $0 }), send(Array(":\n\n".utf8)) { usleep(50_000) }
                }
            case ("POST", "/v1/screens/x/deletion"):
                return .json(#"{"fromRevision":0,"toRevision":1,"definition":"d1","changes":\#(Self.noChanges)}"#)
            default: return .json(#"{"type":"about:blank","title":"Not Found","status":404}"#, status: 404)
            }
        }
        defer { server.close() }
        let (session, handle) = Self.handle(server)
        defer { session.close() }
        #expect(await handle.connection == .connecting)
        let changes = Task {
            var seen: [ScreenHandle.Connection] = []
            for await change in await handle.connectionChanges() { seen.append(change) }
            return seen
        }
        await handle.start()
        func waitUntil(_ what: String, _ done: @escaping (ScreenHandle.Connection) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(90)
            while !done(await handle.connection) {
                guard ContinuousClock.now < deadline else { throw ServerProcessError("timed out waiting for \(what): \(await handle.connection)") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await waitUntil("a 503 to be retrying") { $0 == .retrying(reason: "503 store-unavailable") }
        screenFailure.withLock { $0 = portal }
        try await waitUntil("a portal's page for the screen") { $0 == .retrying(reason: "the answer to the screen's GET is not this screen") }
        screenFailure.withLock { $0 = nil }
        try await waitUntil("the service's screen and stream") { $0 == .connected }

        // The stream ends and a portal answers for it: retrying, whatever events do meanwhile.
        streamFailure.withLock { $0 = portal }
        cut.withLock { $0 = true }
        let notAStream = ScreenHandle.Connection.retrying(reason: "the stream's answer is not an event stream (text/html)")
        try await waitUntil("a portal's page for the stream") { $0 == notAStream }
        await handle.send(.deletion(row: "a"))
        #expect(try await Self.screen(of: handle, atRevision: 1)?.revision == 1)
        #expect(await handle.connection == notAStream)
        streamFailure.withLock { $0 = nil }
        cut.withLock { $0 = false }
        try await waitUntil("the stream back") { $0 == .connected }

        // A reader that comes later starts from the state at the time.
        var late = await handle.connectionChanges().makeAsyncIterator()
        #expect(await late.next() == .connected)
        await handle.close()
        #expect(await late.next() == nil)
        let seen = await changes.value
        #expect(seen.first == .connecting && seen.last == .connected && seen.contains(notAStream), "\(seen)")
    }

    /// A drop the screen cannot show (into another section: rows move within theirs) goes to
    /// the service as it was made, and its refusal comes back: it used to be sent as a move
    /// of the row to where it stood, which the service accepted as no change.
    @Test(.timeLimit(.minutes(3))) func aDropIntoAnotherSectionIsSentAsMade() async throws {
        let twoSections =
            #"{"id":"x","title":"X","revision":0,"definition":"d1","sections":[{"id":"s","rows":[{"id":"a","kind":"basic","title":"a","movable":true},{"id":"b","kind":"basic","title":"b","movable":true}]},{"id":"t","rows":[{"id":"c","kind":"basic","title":"c","movable":true}]}]}"#
        let server = try ScriptedServer { request in
            switch (request.method, request.path) {
            case ("GET", "/v1/screens/x"): return .json(twoSections)
            case ("GET", "/v1/screens/x/stream"): return Self.staysOpen()
            case ("POST", "/v1/screens/x/move"):
                return .json(
                    #"{"type":"urn:tabula:problem:invalid-move","title":"Invalid Move","status":422,"detail":"rows move within their section"}"#,
                    status: 422)
            case ("POST", "/v1/screens/x/selection"):
                // Slow: the moves wait behind it, unsent.
                usleep(300_000)
                return .json(
                    #"{"type":"urn:tabula:problem:event-not-applicable","title":"Event Not Applicable","status":422,"detail":"not selectable"}"#,
                    status: 422)
            default: return .json(#"{"type":"urn:tabula:problem:not-found","title":"Not Found","status":404}"#, status: 404)
            }
        }
        defer { server.close() }
        let (session, handle) = Self.handle(server)
        defer { session.close() }
        let refusal = Self.firstRefusal(of: handle)
        await handle.start()
        _ = try await Self.screen(of: handle, atRevision: 0)
        // Then a drag of the same row that the screen can show, both made while an earlier
        // event waits for its answer: each goes as the user made it.
        await handle.send(.selection(row: "b", values: [:]))
        await handle.send(.move(row: "a", to: RowPath(section: 1, row: 0)))
        await handle.send(.move(row: "a", to: RowPath(section: 0, row: 1)))
        guard case .refused(_, let problem) = await refusal.value else { throw ServerProcessError("no refusal") }
        #expect(problem.slug == "event-not-applicable")
        try await Self.waitFor("both moves", seconds: 60) { server.count("POST", "/v1/screens/x/move") == 2 }
        let sent = server.received.filter { $0.path == "/v1/screens/x/move" }.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(sent.count == 2, "\(sent)")
        #expect(sent.first?.contains(#""section":1"#) == true && sent.last?.contains(#""section":0"#) == true, "\(sent)")
        await handle.close()
    }

    /// A stream cut short (its connection lost mid-answer) leaves the handle not connected
    /// until the next one opens: it used to say `.connected` through the whole wait.
    @Test(.timeLimit(.minutes(3))) func aStreamCutIsNotConnectedUntilTheNextOpens() async throws {
        let streams = Mutex(0)
        let server = try ScriptedServer { request in
            switch (request.method, request.path) {
            case ("GET", "/v1/screens/x"): return .json(Self.screen(revision: 0, rows: ["a"]))
            case ("GET", "/v1/screens/x/stream"):
                let count = streams.withLock { count in
                    count += 1
                    return count
                }
                guard count == 1 else { return Self.staysOpen() }
                // The next connection after a long `retry:`, so the wait is seen; the body ends
                // long before the length it announced.
                let body = "retry: 6000\n\n"
                return .raw(Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 100000\r\n\r\n\(body)".utf8))
            default: return .json(#"{"type":"urn:tabula:problem:not-found","title":"Not Found","status":404}"#, status: 404)
            }
        }
        defer { server.close() }
        // A long heartbeat: the silence watchdog, which says retrying too, stays out of it.
        let (session, handle) = Self.handle(server, Self.configuration(heartbeat: .seconds(30)))
        defer { session.close() }
        await handle.start()
        let deadline = ContinuousClock.now + .seconds(60)
        var seen: [ScreenHandle.Connection] = []
        while ContinuousClock.now < deadline {
            let connection = await handle.connection
            if seen.last != connection { seen.append(connection) }
            if case .retrying(let reason) = connection, reason.hasPrefix("the stream failed") { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard case .retrying(let reason)? = seen.last, reason.hasPrefix("the stream failed") else {
            Issue.record("\(seen)")
            return
        }
        await handle.close()
    }

    /// A page that is not the service's (a proxy's `502` or `401`, a portal's redirect or its
    /// `200` page, a gateway's own problem documents) may hide an event that reached the
    /// service: the event is sent again with its id, and the handle does not end (a gateway's
    /// `401` document used to end it as the session's end). A `503 actions-not-configured` is
    /// the service's refusal of that event, which sending it again cannot change: it is not.
    @Test(.timeLimit(.minutes(3))) func aPageNotTheServicesIsRetriedAndAMissingBackendIsNot() async throws {
        let gatewayProblem = { (status: Int, title: String) in #"{"type":"about:blank","title":"\#(title)","status":\#(status)}"# }
        let pages: [(status: Int, body: String)] = [
            (502, "<html>Bad Gateway</html>"), (302, "<html>Sign in to the Wi-Fi</html>"), (200, "<html>Sign in to the Wi-Fi</html>"),
            (401, "<html>Proxy sign-in</html>"), (401, gatewayProblem(401, "Unauthorized")), (502, gatewayProblem(502, "Bad Gateway")),
        ]
        let server = try ScriptedServer { [posts = Mutex(0)] request in
            switch (request.method, request.path) {
            case ("GET", "/v1/screens/x"): return .json(Self.screen(revision: 0, rows: ["a", "b"]))
            case ("GET", "/v1/screens/x/stream"): return Self.staysOpen()
            case ("POST", "/v1/screens/x/deletion"):
                let count = posts.withLock { count in
                    count += 1
                    return count
                }
                guard count <= pages.count else {
                    return .json(#"{"fromRevision":0,"toRevision":1,"definition":"d1","changes":\#(Self.noChanges)}"#)
                }
                let page = pages[count - 1]
                return page.body.hasPrefix("{")
                    ? .whole(status: page.status, contentType: "application/problem+json", body: Array(page.body.utf8))
                    : .whole(status: page.status, contentType: "text/html", body: Array(page.body.utf8))
            case ("POST", "/v1/screens/x/selection"):
                return .json(
                    #"{"type":"urn:tabula:problem:actions-not-configured","title":"Actions Not Configured","status":503,"detail":"no backend"}"#,
                    status: 503)
            default: return .json(#"{"type":"about:blank","title":"Not Found","status":404}"#, status: 404)
            }
        }
        defer { server.close() }
        let (session, handle) = Self.handle(server)
        defer { session.close() }
        let refusal = Self.firstRefusal(of: handle)
        await handle.start()
        await handle.send(.deletion(row: "a"))
        #expect(try await Self.screen(of: handle, atRevision: 1)?.revision == 1)
        #expect(server.count("POST", "/v1/screens/x/deletion") == pages.count + 1)
        #expect(await !handle.hasEnded)
        let ids = server.received.filter { $0.path == "/v1/screens/x/deletion" }.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(Set(ids).count == 1, "the same body, and so the same eventId, again: \(ids)")
        await handle.send(.selection(row: "b", values: [:]))
        guard case .refused(_, let problem) = await refusal.value else { throw ServerProcessError("no refusal") }
        #expect(problem.slug == "actions-not-configured")
        #expect(server.count("POST", "/v1/screens/x/selection") == 1)
        await handle.close()
    }

    /// Closing the session ends its handles: their updates end with `closed`, and nothing
    /// more is asked of the closed transport.
    @Test(.timeLimit(.minutes(3))) func closingTheSessionEndsItsHandles() async throws {
        let server = try Self.service { Self.staysOpen() }
        defer { server.close() }
        let (session, handle) = Self.handle(server)
        let end = Task { () -> EndReason? in
            for await update in handle.updates { if case .ended(let reason) = update { return reason } }
            return nil
        }
        await handle.start()
        try await Self.waitFor("the stream", seconds: 60) { Self.streams(server) == 1 }
        _ = try await Self.screen(of: handle, atRevision: 0)
        session.close()
        #expect(await end.value == .closed)
        let asked = server.received.count
        try await Task.sleep(for: .seconds(1))
        #expect(server.received.count == asked, "a closed session's handle asks nothing more")
    }

    /// The first refusal `handle` publishes (read from its updates, which it then owns).
    static func firstRefusal(of handle: ScreenHandle) -> Task<ScreenUpdate?, Never> {
        Task { await handle.updates.first { if case .refused = $0 { true } else { false } } }
    }

    /// Follows screen `x` of `server` until `done`, failing after `seconds`.
    static func follow(
        _ server: ScriptedServer, _ configuration: TabulaSession.Configuration = configuration(), until what: String, seconds: Double = 90,
        _ done: () -> Bool
    ) async throws {
        let (session, handle) = Self.handle(server, configuration)
        defer { session.close() }
        await handle.start()
        try await waitFor(what, seconds: seconds, done)
        await handle.close()
    }

    /// Screen `x` of `server` as a new handle shows it once at `revision`, or after 90 seconds.
    static func screen(following server: ScriptedServer, atRevision revision: Int) async throws -> Screen? {
        let (session, handle) = Self.handle(server)
        defer { session.close() }
        await handle.start()
        let shown = try await screen(of: handle, atRevision: revision)
        await handle.close()
        return shown
    }

    /// The handle's screen once at `revision`, or as it is after 90 seconds.
    static func screen(of handle: ScreenHandle, atRevision revision: Int) async throws -> Screen? {
        let deadline = ContinuousClock.now + .seconds(90)
        var shown = await handle.screen
        while shown?.revision != revision, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            shown = await handle.screen
        }
        return shown
    }

    static func waitFor(_ what: String, seconds: Double, _ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !done() {
            guard ContinuousClock.now < deadline else { throw ServerProcessError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
