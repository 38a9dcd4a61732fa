import Logging
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport
import Testing

@Suite struct ShutdownTests {
    func startServer(grace: Double) throws -> (HTTPServer, UInt16) {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.threads = 2
        configuration.shutdownGraceSeconds = grace
        let server = HTTPServer(configuration: configuration, handler: TestHandler(), observer: RecordingObserver(), logger: Logger(label: "test"))
        try server.start()
        return (server, server.port)
    }

    /// Runs `shutdown()` on its own thread and returns a way to wait for it.
    func shutdownInBackground(_ server: HTTPServer) -> Locked<Bool> {
        let done = Locked(false)
        final class Box: @unchecked Sendable {
            let server: HTTPServer
            let done: Locked<Bool>
            init(_ server: HTTPServer, _ done: Locked<Bool>) { self.server = server; self.done = done }
        }
        var thread = pthread_t()
        pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
                box.server.shutdown()
                box.done.withLock { $0 = true }
                return nil
            }, Unmanaged.passRetained(Box(server, done)).toOpaque())
        pthread_detach(thread)
        return done
    }

    func waitFor(_ flag: Locked<Bool>, seconds: Double) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if flag.withLock({ $0 }) { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func requestInProgressFinishesAndNewConnectionsAreRefused() throws {
        let (server, port) = try startServer(grace: 5)
        let slow = try RawHTTPConnection(port: port)
        try slow.send(getRequest("/late?ms=700"))
        usleep(100_000)
        let started = ContinuousClock.now
        let done = shutdownInBackground(server)
        usleep(100_000)
        #expect(throws: RawHTTPError.self) { _ = try RawHTTPConnection(port: port) }
        let response = try slow.readResponse()
        #expect(response.status == 200 && response.bodyText == "late")
        #expect(response.header("Connection")?.lowercased() == "close")
        #expect(waitFor(done, seconds: 3))
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    /// A shutdown closes the connections that wait for a request at once, so that a proxy
    /// sends no request to an instance that is stopping; a busy one closes after its answer.
    @Test func idleConnectionsCloseAtOnceAndBusyOnesAfterTheirAnswer() throws {
        let (server, port) = try startServer(grace: 5)
        let slow = try RawHTTPConnection(port: port)
        try slow.send(getRequest("/late?ms=600"))
        let idle = try RawHTTPConnection(port: port)
        try idle.send(getRequest("/hello"))
        #expect(try idle.readResponse().status == 200)
        usleep(50_000)
        let done = shutdownInBackground(server)
        #expect(idle.closesWithin(seconds: 0.5))
        let answer = try slow.readResponse()
        #expect(answer.status == 200 && answer.header("Connection")?.lowercased() == "close")
        #expect(slow.closesWithin(seconds: 1))
        #expect(waitFor(done, seconds: 3))
    }

    @Test func answersStillMissingAfterTheGraceGet503() throws {
        let (server, port) = try startServer(grace: 0.3)
        let stuck = try RawHTTPConnection(port: port)
        try stuck.send(getRequest("/late?ms=3000"))
        usleep(100_000)
        let done = shutdownInBackground(server)
        let response = try stuck.readResponse()
        #expect(response.status == 503)
        #expect(waitFor(done, seconds: 3))
    }

    @Test func idleConnectionsDoNotDelayShutdown() throws {
        let (server, port) = try startServer(grace: 5)
        let idle = try (0..<5).map { _ in try RawHTTPConnection(port: port) }
        for connection in idle {
            try connection.send(getRequest("/hello"))
            _ = try connection.readResponse()
        }
        let started = ContinuousClock.now
        server.shutdown()
        #expect(ContinuousClock.now - started < .seconds(1))
    }
}
