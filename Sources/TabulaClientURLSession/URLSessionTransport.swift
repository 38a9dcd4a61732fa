import Foundation
import TabulaClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TabulaClient`'s transport over URLSession's delegate API, the one that streams on Apple
/// platforms and in Linux's FoundationNetworking alike: answers are collected whole, streams
/// handed on chunk by chunk as they arrive.
///
/// ```swift
/// let session = try await TabulaSession.create(baseURL: "https://tabula.example.com", transport: URLSessionTransport())
/// ```
public final class URLSessionTransport: NSObject, HTTPTransport, URLSessionDataDelegate, @unchecked Sendable {
    private enum Waiter {
        case answer(CheckedContinuation<HTTPAnswer, any Error>, status: Int, headers: [String: String])
        case stream(
            head: CheckedContinuation<HTTPAnswer, any Error>?, chunks: AsyncThrowingStream<[UInt8], any Error>.Continuation, backlog: StreamBacklog)
    }

    private let lock = NSLock()
    private var waiters: [Int: Waiter] = [:]
    /// The bodies of answers being collected, by task: apart from ``waiters``, so that each
    /// part is appended in place rather than the body copied out and back.
    private var bodies: [Int: [UInt8]] = [:]
    /// When each answer's task last heard from the service (its head, or a part of its body).
    private var heard: [Int: ContinuousClock.Instant] = [:]
    private var session: URLSession?

    public override init() {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// The largest answer body `send` collects: a screen far past the service's state limits.
    /// A larger one (a proxy's or a hostile server's endless body) fails the request.
    public static let maxAnswerBytes = 64 << 20

    public func close() {
        // Taken under the lock, so that no task is made on a session being invalidated
        // (URLSession stops the process for that). Requests and streams still waiting end
        // here: FoundationNetworking may never tell a delegate it let go of.
        let (closing, waiting): (URLSession?, [Int: Waiter]) = locked {
            defer {
                self.session = nil
                self.waiters = [:]
                self.bodies = [:]
                self.heard = [:]
            }
            return (self.session, self.waiters)
        }
        closing?.invalidateAndCancel()
        let closed = TransportFailure.closed
        for waiter in waiting.values {
            switch waiter {
            case .answer(let continuation, _, _): continuation.resume(throwing: closed)
            case .stream(let head, let chunks, _):
                head?.resume(throwing: closed)
                chunks.finish(throwing: closed)
            }
        }
    }

    public func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPAnswer {
        let task = try makeTask(request)
        let id = task.taskIdentifier
        // URLSession's own timeout does not end every stalled request on Linux: a request
        // that has heard nothing from the service for its idle timeout is cancelled here
        // (a large answer that keeps coming is not).
        let timeout = request.idleTimeout
        let deadline = Task { [weak self] in
            var last = ContinuousClock.now
            while true {
                try await Task.sleep(until: last + timeout)
                guard let self else { return }
                last = self.locked { self.heard[id] } ?? last
                if ContinuousClock.now - last >= timeout {
                    task.cancel()
                    return
                }
            }
        }
        defer { deadline.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    locked {
                        waiters[id] = .answer(continuation, status: 0, headers: [:])
                        bodies[id] = []
                        heard[id] = .now
                    }
                    task.resume()
                }
            } onCancel: {
                task.cancel()
            }
        } catch let failure as TransportFailure {
            throw failure
        } catch {
            throw TransportFailure("\(error)")
        }
    }

    public func openStream(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPStream {
        let task = try makeTask(request)
        let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        continuation.onTermination = { [weak self] _ in self?.abandon(task) }
        let backlog = StreamBacklog()
        // URLSession on Linux does not time out a request whose head never comes within the
        // request's own timeout: a stream whose head has not come within it is given up here.
        let timeout = request.idleTimeout
        let headDeadline = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.abandon(task, failing: TransportFailure("the service did not answer within \(timeout)"), onlyBeforeHead: true)
        }
        defer { headDeadline.cancel() }
        do {
            let head = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (head: CheckedContinuation<HTTPAnswer, any Error>) in
                    locked { waiters[task.taskIdentifier] = .stream(head: head, chunks: continuation, backlog: backlog) }
                    task.resume()
                }
            } onCancel: {
                task.cancel()
            }
            return HTTPStream(head: head, body: backlog.reading(chunks), cancel: { [weak self] in self?.abandon(task) })
        } catch let failure as TransportFailure {
            throw failure
        } catch {
            throw TransportFailure("\(error)")
        }
    }

    /// Ends a stream its reader no longer wants: the reader's sequence finishes now, and the
    /// parts URLSession still delivers before the cancellation takes (FoundationNetworking
    /// keeps reading the socket meanwhile) are dropped, not copied and queued.
    /// `onlyBeforeHead`: only while the stream's head has not come.
    private func abandon(_ task: URLSessionTask, failing failure: TransportFailure? = nil, onlyBeforeHead: Bool = false) {
        let waiter: (CheckedContinuation<HTTPAnswer, any Error>?, AsyncThrowingStream<[UInt8], any Error>.Continuation)? = locked {
            guard case .stream(let head, let chunks, _) = waiters[task.taskIdentifier], head != nil || !onlyBeforeHead else { return nil }
            waiters[task.taskIdentifier] = nil
            return (head, chunks)
        }
        waiter?.0?.resume(throwing: failure ?? TransportFailure("the stream was cancelled"))
        if let failure { waiter?.1.finish(throwing: failure) } else { waiter?.1.finish() }
        task.cancel()
    }

    private func makeTask(_ request: HTTPRequest) throws(TransportFailure) -> URLSessionDataTask {
        guard let url = URL(string: request.url) else { throw TransportFailure("\(request.url) is not a URL the client can use") }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.idleTimeout.seconds)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        guard let task = locked({ session?.dataTask(with: urlRequest) }) else { throw TransportFailure.closed }
        return task
    }

    /// `NSLock.withLock` needs iOS 17 and macOS 14; the package supports iOS 16 and macOS 13.
    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: URLSessionDataDelegate

    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let status = http?.statusCode ?? 0
        let head: CheckedContinuation<HTTPAnswer, any Error>? = locked {
            switch waiters[dataTask.taskIdentifier] {
            case .answer(let continuation, _, _):
                waiters[dataTask.taskIdentifier] = .answer(continuation, status: status, headers: headers)
                heard[dataTask.taskIdentifier] = .now
                return nil
            case .stream(let head, let chunks, let backlog):
                waiters[dataTask.taskIdentifier] = .stream(head: nil, chunks: chunks, backlog: backlog)
                return head
            case nil:
                return nil
            }
        }
        head?.resume(returning: HTTPAnswer(status: status, headers: headers))
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        var tooLarge: CheckedContinuation<HTTPAnswer, any Error>?
        let stream: (AsyncThrowingStream<[UInt8], any Error>.Continuation, StreamBacklog)? = locked {
            switch waiters[dataTask.taskIdentifier] {
            case .answer(let continuation, _, _):
                bodies[dataTask.taskIdentifier, default: []].append(contentsOf: data)
                heard[dataTask.taskIdentifier] = .now
                if bodies[dataTask.taskIdentifier, default: []].count > Self.maxAnswerBytes {
                    // Too large to keep: the request fails now, and what still comes is dropped.
                    waiters[dataTask.taskIdentifier] = nil
                    bodies[dataTask.taskIdentifier] = nil
                    heard[dataTask.taskIdentifier] = nil
                    tooLarge = continuation
                }
                return nil
            case .stream(_, let chunks, let backlog):
                return (chunks, backlog)
            case nil:
                return nil
            }
        }
        if let tooLarge {
            tooLarge.resume(throwing: TransportFailure("the answer is larger than \(Self.maxAnswerBytes) bytes"))
            dataTask.cancel()
        }
        guard let (chunks, backlog) = stream else { return }
        guard backlog.add(data.count) else {
            // The reader is far behind a service that keeps sending: give the stream up.
            return abandon(dataTask, failing: TransportFailure("the stream sent more than its reader could take (\(StreamBacklog.limit) bytes behind)"))
        }
        chunks.yield(Array(data))
    }

    /// Redirects are not followed: the `3xx` is the answer. A redirect to another origin
    /// would carry the session's token there (as curl's transport, which follows none).
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (waiter, body) = locked {
            heard[task.taskIdentifier] = nil
            return (waiters.removeValue(forKey: task.taskIdentifier), bodies.removeValue(forKey: task.taskIdentifier) ?? [])
        }
        let failure = error.map { TransportFailure($0.localizedDescription) }
        switch waiter {
        case .answer(let continuation, let status, let headers):
            if let failure {
                continuation.resume(throwing: failure)
            } else {
                continuation.resume(returning: HTTPAnswer(status: status, headers: headers, body: body))
            }
        case .stream(let head, let chunks, _):
            head?.resume(throwing: failure ?? TransportFailure("the stream ended before its answer began"))
            if let failure { chunks.finish(throwing: failure) } else { chunks.finish() }
        case nil:
            break
        }
    }
}

extension Duration {
    /// The duration in seconds, as Foundation's time intervals count.
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
