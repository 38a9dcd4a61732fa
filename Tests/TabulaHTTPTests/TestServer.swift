import HTTPTypes
import Logging
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport

/// A handler with a few routes that exercise the server: immediate, late (from another
/// thread) and prepared answers, one that echoes the body's size, and one the values of its
/// `X-Test` headers.
struct TestHandler: HTTPHandler {
    static let fixed = PreparedResponse(status: .ok, headerFields: [.contentType: "text/plain"], body: Array(repeating: UInt8(ascii: "x"), count: 3400))

    func handle(_ request: Request, responder: Responder) {
        switch (request.method, request.rawPath) {
        case (.get, "/hello"):
            responder.send(Response(status: .ok, headerFields: [.contentType: "text/plain"], body: Array("hello".utf8)))
        case (.get, "/fixed"):
            if let fixed = Self.fixed { responder.send(Response(fixed)) }
        case (.get, "/late"):
            let milliseconds = request.rawQuery.first { $0.name == "ms" }?.value.flatMap { Int($0) } ?? 50
            let thread = LateAnswer(responder: responder, milliseconds: milliseconds)
            thread.start()
        case (.get, "/stream"), (.head, "/stream"):
            let name = request.rawQuery.first { $0.name == "name" }?.value ?? ""
            let source = TestStreamSource()
            let stream = ServerStream(source: source)
            source.stream.withLock { $0 = stream }
            TestStreamSource.opened.withLock { $0[name] = source }
            responder.send(Response(status: .ok, headerFields: [.contentType: "text/event-stream"], stream: stream))
        case (.post, "/echo"):
            responder.send(Response(status: .ok, body: Array("\(request.body.count)".utf8)))
        case (.get, "/busy"):
            // Holds its connection's thread, as a handler deciding for a long time does.
            let milliseconds = request.rawQuery.first { $0.name == "ms" }?.value.flatMap { Int($0) } ?? 50
            usleep(UInt32(milliseconds) * 1000)
            responder.send(Response(status: .ok, body: Array("busy".utf8)))
        case (.get, "/header"):
            let values = request.headers.values("X-Test").map { "[\($0)]" }.joined()
            responder.send(Response(status: .ok, body: Array(values.utf8)))
        case (_, let path):
            let segments = request.pathSegments()?.joined(separator: "|") ?? "malformed"
            responder.send(Response(status: .notFound, body: Array("\(path) -> \(segments)".utf8)))
        }
    }

    func refusal(_ reason: RejectionReason, under configuration: ServerConfiguration) -> Response {
        Response(status: reason.status, headerFields: [.contentType: "text/plain"], body: Array(reason.rawValue.utf8))
    }
}

/// A stream's chunks, pushed by a test from any thread.
final class TestStreamSource: StreamSource, Sendable {
    /// The stream opened last under each `?name=`.
    static let opened = Locked<[String: TestStreamSource]>([:])

    let stream = Locked<ServerStream?>(nil)
    private let queue = Locked<(chunks: [[UInt8]], finished: Bool)>(([], false))
    let closed = Locked(false)

    func push(_ text: String) {
        queue.withLock { $0.chunks.append(Array(text.utf8)) }
        stream.withLock { $0 }?.wake()
    }

    func finish() {
        queue.withLock { $0.finished = true }
        stream.withLock { $0 }?.wake()
    }

    func nextChunk() -> StreamChunk {
        queue.withLock { queue in
            if !queue.chunks.isEmpty { return .bytes(queue.chunks.removeFirst()) }
            return queue.finished ? .end : .wait
        }
    }

    func streamClosed() {
        closed.withLock { $0 = true }
        stream.withLock { $0 = nil }
    }

    /// The stream opened under `name`, once it is.
    static func waitFor(_ name: String, seconds: Double = 5) -> TestStreamSource? {
        _ = eventually(within: seconds) { opened.withLock { $0[name] } != nil }
        return opened.withLock { $0[name] }
    }
}

/// Answers a request from another thread after a delay.
final class LateAnswer: @unchecked Sendable {
    let responder: Responder
    let milliseconds: Int

    init(responder: Responder, milliseconds: Int) {
        self.responder = responder
        self.milliseconds = milliseconds
    }

    func start() {
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let answer = Unmanaged<LateAnswer>.fromOpaque(argument).takeRetainedValue()
                usleep(UInt32(answer.milliseconds * 1000))
                answer.responder.send(Response(status: .ok, body: Array("late".utf8)))
                return nil
            }, box.toOpaque())
        pthread_detach(thread)
    }
}

/// Counts what the server reports.
final class RecordingObserver: HTTPServerObserver, @unchecked Sendable {
    let rejections = Locked<[RejectionReason]>([])
    let completed = Locked<[RequestSummary]>([])

    func requestCompleted(_ summary: borrowing RequestSummary) {
        let kept = copy summary
        completed.withLock { $0.append(kept) }
    }
    func requestRejected(_ reason: RejectionReason) { rejections.withLock { $0.append(reason) } }
}

/// Starts a server on a free loopback port for one test.
func withServer(
    _ adjust: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (HTTPServer, UInt16, RecordingObserver) throws -> Void
) throws {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.threads = 2
    configuration.maxBodyBytes = 1024
    configuration.shutdownGraceSeconds = 3
    adjust(&configuration)
    let observer = RecordingObserver()
    let server = HTTPServer(configuration: configuration, handler: TestHandler(), observer: observer, logger: Logger(label: "test"))
    try server.start()
    defer { server.shutdown() }
    try body(server, server.port, observer)
}
