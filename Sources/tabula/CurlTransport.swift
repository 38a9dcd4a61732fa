import TabulaClient
import TabulaCurl
import TabulaPlatform

/// `TabulaClient`'s transport for `tabula watch`: the service's own libcurl client, which
/// loads libcurl with `dlopen` when a watch starts. So the binary links neither libcurl nor
/// FoundationNetworking, and `tabula serve` maps neither unless a backend call needs libcurl.
final class CurlTransport: HTTPTransport {
    private let client: HTTPClient
    /// The PEM file of the authorities the service's certificate must come from (`--ca-file`),
    /// or `nil` for the system's.
    private let certificateAuthorities: String?

    init(certificateAuthorities: String?) throws(HTTPClientError) {
        client = try HTTPClient(maxConnections: 8)
        self.certificateAuthorities = certificateAuthorities
    }

    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPAnswer {
        let result = await withCheckedContinuation { continuation in
            client.post(clientRequest(request)) { continuation.resume(returning: $0) }
        }
        switch result {
        case .success(let response):
            return HTTPAnswer(status: response.status, headers: Self.headers(of: response.head), body: response.body)
        case .failure(let error):
            throw TransportFailure("\(error)")
        }
    }

    /// The head is known with the body's first part, or when a transfer ends without one.
    func openStream(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPStream {
        struct Progress {
            var head: CheckedContinuation<HTTPAnswer, any Error>?
            var cancelled = false
        }
        let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let progress = Locked(Progress())
        var curlRequest = clientRequest(request)
        curlRequest.receive = { answerHead, bytes in
            let (head, cancelled) = progress.withLock { progress in
                defer { progress.head = nil }
                return (progress.head, progress.cancelled)
            }
            head?.resume(returning: HTTPAnswer(status: answerHead.status, headers: Self.headers(of: answerHead)))
            // Returning false ends the transfer: how a cancelled stream stops at its next bytes
            // (a silent one stops at curl's own deadline, the request's idle timeout).
            guard !cancelled else { return false }
            continuation.yield(bytes)
            return true
        }
        let cancel: @Sendable () -> Void = { progress.withLock { $0.cancelled = true } }
        continuation.onTermination = { _ in cancel() }
        do {
            let head = try await withCheckedThrowingContinuation { (head: CheckedContinuation<HTTPAnswer, any Error>) in
                progress.withLock { $0.head = head }
                client.post(curlRequest) { result in
                    let waiting = progress.withLock { progress in
                        defer { progress.head = nil }
                        return progress.head
                    }
                    switch result {
                    case .success(let response):
                        waiting?.resume(returning: HTTPAnswer(status: response.status, headers: Self.headers(of: response.head), body: response.body))
                        continuation.finish()
                    case .failure(let error):
                        waiting?.resume(throwing: TransportFailure("\(error)"))
                        continuation.finish(throwing: TransportFailure("\(error)"))
                    }
                }
            }
            return HTTPStream(head: head, body: body, cancel: cancel)
        } catch let failure as TransportFailure {
            throw failure
        } catch {
            throw TransportFailure("\(error)")
        }
    }

    func close() {
        client.shutdown()
    }

    /// The largest answer `tabula watch` reads: a screen far past the service's state limits.
    static let answerLimit = 64 << 20

    /// The headers of an answer that the client reads: its type and its `Retry-After`.
    private static func headers(of head: HTTPClientHead) -> [String: String] {
        var headers: [String: String] = [:]
        headers["content-type"] = head.contentType
        headers["retry-after"] = head.retryAfterSeconds.map(String.init)
        return headers
    }

    private func clientRequest(_ request: HTTPRequest) -> HTTPClientRequest {
        var curlRequest = HTTPClientRequest(url: request.url, headers: request.headers, body: request.body ?? [], timeout: request.idleTimeout)
        curlRequest.method = request.method
        curlRequest.certificateAuthorities = certificateAuthorities
        // A screen may be larger than the mebibyte a backend's answer may be, and take a
        // while on a slow link: the request's timeout is for silence (as TabulaClient's
        // transports take it), not for the whole answer.
        curlRequest.answerLimit = Self.answerLimit
        curlRequest.timeoutIsSilence = true
        return curlRequest
    }
}
