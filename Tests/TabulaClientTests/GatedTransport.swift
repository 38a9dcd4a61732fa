import Synchronization
import TabulaClient
import TabulaPlatform

/// A real transport with three gates a test opens and closes, to make answers and stream
/// events cross in the order it wants: while `holdsEvents`, a `POST` waits before it is sent;
/// while `holdsAnswers`, a `POST`'s answer waits before the handle reads it; while
/// `holdsStream`, stream bytes that arrive wait before the handle reads them. It also keeps
/// the path of every request it sent.
final class GatedTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let state = Locked<(holdsEvents: Bool, holdsAnswers: Bool, holdsStream: Bool, waitingEvents: Int, waitingAnswers: Int, paths: [String])>(
        (false, false, false, 0, 0, []))

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    func holdEvents(_ hold: Bool) { state.withLock { $0.holdsEvents = hold } }
    func holdStream(_ hold: Bool) { state.withLock { $0.holdsStream = hold } }
    func holdAnswers(_ hold: Bool) { state.withLock { $0.holdsAnswers = hold } }

    /// `POST`s waiting at the gate.
    var waitingEvents: Int { state.withLock { $0.waitingEvents } }

    /// Answers of `POST`s waiting at the gate.
    var waitingAnswers: Int { state.withLock { $0.waitingAnswers } }

    /// The path (and query) of every request sent, streams' included, in order.
    var paths: [String] { state.withLock { $0.paths } }

    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPAnswer {
        if request.method == "POST", state.withLock({ $0.holdsEvents }) {
            state.withLock { $0.waitingEvents += 1 }
            while state.withLock({ $0.holdsEvents }) { try? await Task.sleep(for: .milliseconds(2)) }
            state.withLock { $0.waitingEvents -= 1 }
        }
        record(request)
        let answer = try await inner.send(request)
        if request.method == "POST", state.withLock({ $0.holdsAnswers }) {
            state.withLock { $0.waitingAnswers += 1 }
            while state.withLock({ $0.holdsAnswers }) { try? await Task.sleep(for: .milliseconds(2)) }
            state.withLock { $0.waitingAnswers -= 1 }
        }
        return answer
    }

    func openStream(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPStream {
        record(request)
        let opened = try await inner.openStream(request)
        let state = self.state
        let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let pump = Task {
            do {
                for try await chunk in opened.body {
                    while state.withLock({ $0.holdsStream }) { try await Task.sleep(for: .milliseconds(2)) }
                    continuation.yield(chunk)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return HTTPStream(head: opened.head, body: body) {
            pump.cancel()
            opened.cancel()
        }
    }

    func close() { inner.close() }

    private func record(_ request: HTTPRequest) {
        let path = request.url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(3).first.map { "/" + $0 } ?? request.url
        state.withLock { $0.paths.append(path) }
    }
}
