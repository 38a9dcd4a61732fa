import Foundation
import TabulaClientURLSession
import TabulaTestSupport
import Testing

@testable import TabulaClient

/// The URLSession transport's own deadlines and its close, against a server that takes a
/// request and never answers it: FoundationNetworking on Linux neither times out a stream
/// whose head never comes nor tells a delegate of a task it dropped when its session is
/// invalidated, so each wait ends by the transport's own doing. The failures say which
/// (URLSession's own timeout, or a wait the test's time limit cuts, fails the test).
@Suite struct URLSessionTransportTests {
    /// Runs `body` with a server that reads each request and holds it without a byte of
    /// answer, and a transport; at the end the server lets its requests go and closes.
    static func withSilentServer(_ body: (ScriptedServer, URLSessionTransport) async throws -> Void) async throws {
        let release = DispatchSemaphore(value: 0)
        let server = try ScriptedServer { _ in
            release.wait()
            release.signal()
            return .raw([])
        }
        let transport = URLSessionTransport()
        defer {
            transport.close()
            release.signal()
            server.close()
        }
        try await body(server, transport)
    }

    static func waitForRequests(_ count: Int, on server: ScriptedServer) async throws {
        let deadline = ContinuousClock.now + .seconds(90)
        while server.received.count < count {
            guard ContinuousClock.now < deadline else { throw ServerProcessError("the server got \(server.received.count) of \(count) requests") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(.timeLimit(.minutes(3))) func aStreamWhoseHeadNeverComesIsGivenUpAfterItsTimeout() async throws {
        try await Self.withSilentServer { server, transport in
            let request = HTTPRequest(method: "GET", url: "\(server.url)/v1/screens/x/stream", idleTimeout: .seconds(1))
            let failure = await #expect(throws: TransportFailure.self) { try await transport.openStream(request) }
            #expect(failure?.description == "the service did not answer within 1.0 seconds", "\(String(describing: failure))")
        }
    }

    @Test(.timeLimit(.minutes(3))) func closingEndsEveryRequestAndStreamStillWaiting() async throws {
        try await Self.withSilentServer { server, transport in
            // Timeouts far past the test's time limit: only the close can end these waits.
            let answer = Task {
                try await transport.send(HTTPRequest(method: "GET", url: "\(server.url)/v1/screens/x", idleTimeout: .seconds(3600)))
            }
            let stream = Task {
                try await transport.openStream(HTTPRequest(method: "GET", url: "\(server.url)/v1/screens/x/stream", idleTimeout: .seconds(3600)))
            }
            try await Self.waitForRequests(2, on: server)
            transport.close()
            let answerFailure = await #expect(throws: TransportFailure.self) { try await answer.value }
            let streamFailure = await #expect(throws: TransportFailure.self) { try await stream.value }
            #expect(answerFailure?.description == "the transport was closed")
            #expect(streamFailure?.description == "the transport was closed")
            let late = await #expect(throws: TransportFailure.self) {
                try await transport.send(HTTPRequest(method: "GET", url: "\(server.url)/v1/screens/x", idleTimeout: .seconds(1)))
            }
            #expect(late?.description == "the transport was closed", "a closed transport makes no new request")
        }
    }
}
