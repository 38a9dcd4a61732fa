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
        case answer(CheckedContinuation<HTTPAnswer, any Error>, status: Int, headers: [String: String], body: [UInt8])
        case stream(head: CheckedContinuation<HTTPAnswer, any Error>?, chunks: AsyncThrowingStream<[UInt8], any Error>.Continuation)
    }

    private let lock = NSLock()
    private var waiters: [Int: Waiter] = [:]
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

    public func close() {
        // Taken under the lock, so that no task is made on a session being invalidated
        // (URLSession stops the process for that).
        locked {
            defer { session = nil }
            return session
        }?.invalidateAndCancel()
    }

    public func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPAnswer {
        let task = try makeTask(request)
        // URLSession's own timeout does not end every stalled request on Linux: a request
        // whose answer has not come within its timeout is cancelled here.
        let deadline = Task {
            try await Task.sleep(for: request.idleTimeout)
            task.cancel()
        }
        defer { deadline.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    locked { waiters[task.taskIdentifier] = .answer(continuation, status: 0, headers: [:], body: []) }
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
        continuation.onTermination = { _ in task.cancel() }
        do {
            let head = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (head: CheckedContinuation<HTTPAnswer, any Error>) in
                    locked { waiters[task.taskIdentifier] = .stream(head: head, chunks: continuation) }
                    task.resume()
                }
            } onCancel: {
                task.cancel()
            }
            return HTTPStream(head: head, body: chunks, cancel: { task.cancel() })
        } catch let failure as TransportFailure {
            throw failure
        } catch {
            throw TransportFailure("\(error)")
        }
    }

    private func makeTask(_ request: HTTPRequest) throws(TransportFailure) -> URLSessionDataTask {
        guard let url = URL(string: request.url) else { throw TransportFailure("\(request.url) is not a URL the client can use") }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.idleTimeout.seconds)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        guard let task = locked({ session?.dataTask(with: urlRequest) }) else { throw TransportFailure("the transport was closed") }
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
            case .answer(let continuation, _, _, let body):
                waiters[dataTask.taskIdentifier] = .answer(continuation, status: status, headers: headers, body: body)
                return nil
            case .stream(let head, let chunks):
                waiters[dataTask.taskIdentifier] = .stream(head: nil, chunks: chunks)
                return head
            case nil:
                return nil
            }
        }
        head?.resume(returning: HTTPAnswer(status: status, headers: headers))
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let chunks: AsyncThrowingStream<[UInt8], any Error>.Continuation? = locked {
            switch waiters[dataTask.taskIdentifier] {
            case .answer(let continuation, let status, let headers, var body):
                body.append(contentsOf: data)
                waiters[dataTask.taskIdentifier] = .answer(continuation, status: status, headers: headers, body: body)
                return nil
            case .stream(_, let chunks):
                return chunks
            case nil:
                return nil
            }
        }
        chunks?.yield(Array(data))
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let waiter = locked { waiters.removeValue(forKey: task.taskIdentifier) }
        let failure = error.map { TransportFailure($0.localizedDescription) }
        switch waiter {
        case .answer(let continuation, let status, let headers, let body):
            if let failure {
                continuation.resume(throwing: failure)
            } else {
                continuation.resume(returning: HTTPAnswer(status: status, headers: headers, body: body))
            }
        case .stream(let head, let chunks):
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
