import Foundation
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
    /// Shuts `server` down on a thread of its own: `done` once it returned, and `stopped`
    /// what it returned.
    func shutdownInBackground(_ server: HTTPServer, stopped: Locked<Bool?> = Locked(nil)) -> Locked<Bool> {
        let done = Locked(false)
        final class Box: @unchecked Sendable {
            let server: HTTPServer
            let done: Locked<Bool>
            let stopped: Locked<Bool?>
            init(_ server: HTTPServer, _ done: Locked<Bool>, _ stopped: Locked<Bool?>) {
                self.server = server
                self.done = done
                self.stopped = stopped
            }
        }
        var thread = pthread_t()
        pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
                let stopped = box.server.shutdown()
                box.done.withLock { $0 = true }
                box.stopped.withLock { $0 = stopped }
                return nil
            }, Unmanaged.passRetained(Box(server, done, stopped)).toOpaque())
        pthread_detach(thread)
        return done
    }

    func waitFor(_ flag: Locked<Bool>, seconds: Double) -> Bool {
        eventually(within: seconds) { flag.withLock { $0 } }
    }

    /// Whether connecting to `port` is refused within a few seconds: the listening socket
    /// closed.
    func refusesConnections(_ port: UInt16) -> Bool {
        eventually { (try? RawHTTPConnection(port: port)) == nil }
    }

    @Test func requestInProgressFinishesAndNewConnectionsAreRefused() throws {
        let (server, port) = try startServer(grace: 5)
        let slow = try RawHTTPConnection(port: port)
        try slow.send(getRequest("/late?ms=700"))
        #expect(eventually { server.requestsInProgress == 1 })
        let started = ContinuousClock.now
        let done = shutdownInBackground(server)
        #expect(refusesConnections(port))
        let response = try slow.readResponse()
        #expect(response.status == 200 && response.bodyText == "late")
        #expect(response.header("Connection")?.lowercased() == "close")
        #expect(waitFor(done, seconds: 3))
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    /// A handler that holds its thread past the grace does not hold the shutdown: it ends
    /// soon after the grace, leaving that request to the process's exit.
    @Test func aHandlerThatHoldsItsThreadDoesNotHoldTheShutdown() throws {
        let (server, port) = try startServer(grace: 0.3)
        let busy = try RawHTTPConnection(port: port)
        try busy.send(getRequest("/busy?ms=6000"))
        #expect(eventually { server.requestsInProgress == 1 })
        let started = ContinuousClock.now
        let stopped = Locked<Bool?>(nil)
        let done = shutdownInBackground(server, stopped: stopped)
        #expect(waitFor(done, seconds: 4))
        #expect(ContinuousClock.now - started < .seconds(4))
        #expect(stopped.withLock { $0 } == false, "the shutdown says it left the daemon running")
        // Once the handler returns, a second shutdown stops what the first left running.
        _ = try? busy.readResponse()
        #expect(server.shutdown(), "the second shutdown stopped the daemon")
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
        // The slow request is in progress; the idle connection's has ended.
        #expect(eventually { server.requestsInProgress == 1 })
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
        #expect(eventually { server.requestsInProgress == 1 })
        let done = shutdownInBackground(server)
        let response = try stuck.readResponse()
        #expect(response.status == 503)
        #expect(waitFor(done, seconds: 3))
    }

    /// Shutdowns in the middle of a load of keep-alive clients whose answers come late,
    /// from other threads: every request gets an answer (200, or 503 once the grace is
    /// over) and the daemon stops. libmicrohttpd aborts the process when it is stopped with
    /// a connection still suspended, so a request parked after the last sweep, or an
    /// answer that came after it and was never resumed, ends the test run.
    @Test(arguments: [0.0, 0.05, 0.2])
    func shutdownsUnderLoadAnswerEveryRequestAndStop(grace: Double) throws {
        for round in 0..<12 {
            // Few clients as often as many: the shutdown's windows open when the count of
            // requests in progress touches zero while a keep-alive client turns around.
            let clients = round % 2 == 0 ? 3 : 12
            let (server, port) = try startServer(grace: grace)
            let outcomes = Locked<[String: Int]>([:])
            let running = Locked(clients)
            for client in 0..<clients {
                // Threads of their own: the global queue's pool grows too slowly for clients
                // that block on their sockets.
                Thread.detachNewThread {
                    defer { running.withLock { $0 -= 1 } }
                    // Staggered, so that some connect just as the shutdown begins.
                    usleep(UInt32(client * 9_000 + round * 3_000))
                    var connection = try? RawHTTPConnection(port: port)
                    var request = 0
                    while let open = connection {
                        request += 1
                        let outcome: String
                        do {
                            try open.send(getRequest("/late?ms=\((client * 7 + request * 13 + round) % (clients == 3 ? 3 : 40))"))
                            let response = try open.readResponse()
                            outcome = String(response.status)
                            // Odd clients open a connection for each request, so that
                            // some are accepted in the instant the shutdown begins.
                            if client % 2 == 1 || response.header("Connection")?.lowercased() == "close" {
                                connection = try? RawHTTPConnection(port: port)
                            }
                        } catch {
                            outcome = "error"
                            connection = nil
                        }
                        outcomes.withLock { $0[outcome, default: 0] += 1 }
                    }
                }
            }
            // A moment chosen to fall at a different point of the load each round.
            usleep(UInt32(60_000 + round * 5_000))
            let done = shutdownInBackground(server)
            #expect(waitFor(done, seconds: 10), "round \(round): the shutdown did not end")
            #expect(eventually(within: 10) { running.withLock { $0 } == 0 }, "round \(round): a client still runs")
            let counts = outcomes.withLock { $0 }
            #expect(Set(counts.keys).isSubset(of: ["200", "503", "error"]), "round \(round): \(counts)")
            #expect(counts["200", default: 0] > 2, "round \(round): too little load to tell: \(counts)")
        }
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
