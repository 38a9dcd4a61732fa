internal import CCurl
import TabulaPlatform

/// A request handed to the client's thread, with whom to tell.
struct PendingTransfer: Sendable {
    let request: HTTPClientRequest
    let completion: @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
}

/// One transfer in flight: what curl writes into (through `CURLOPT_WRITEDATA`) and what must
/// live as long as the easy handle uses it. Only the client's thread touches it; the thread's
/// table of transfers in flight holds it, so the unretained pointer curl keeps stays valid.
final class Transfer {
    let completion: @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    private(set) var body: [UInt8] = []
    /// Where a streamed answer's parts go (``HTTPClientRequest/receive``), and what the
    /// status is read from as they arrive.
    private var stream: (receive: @Sendable (HTTPClientHead, [UInt8]) -> Bool, handle: LibCurl.Easy, curl: LibCurl)?
    /// A streamed answer's head, read from the handle with the body's first part.
    private var streamHead: HTTPClientHead?
    /// The largest answer body kept (the request's ``HTTPClientRequest/answerLimit``); more
    /// aborts the transfer.
    private var bodyLimit = HTTPClientRequest.defaultAnswerLimit
    /// Whether the answer outgrew ``bodyLimit`` (curl then reports a write error).
    private(set) var overflowed = false
    /// Where curl writes its detailed error text (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The header fields, which curl reads during the transfer and does not copy.
    private var headerList: LibCurl.HeaderList?
    /// For a transfer timed by its silence (a stream, or ``HTTPClientRequest/timeoutIsSilence``):
    /// the longest it may hear nothing, and when it last heard a part of the body (or began).
    /// The loop ends it past that (``isSilent(at:)``): curl's low-speed limit, an average
    /// over its window, also ends a stream that is alive but quiet, as one whose heartbeat
    /// is a few bytes every 15 s.
    private var silenceLimit: Int64?
    private var lastHeard: Int64 = 0

    init(completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void) {
        self.completion = completion
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    /// Frees what curl used; call once the handle is reset or cleaned up.
    func release(_ curl: LibCurl) {
        curl.slistFreeAll(headerList)
        headerList = nil
        errorBuffer.deallocate()
    }

    /// Sets every option of `request` on a fresh (or reset) handle; the error when one is
    /// refused or the request cannot be sent as given.
    func configure(_ handle: LibCurl.Easy, for request: HTTPClientRequest, _ curl: LibCurl) -> HTTPClientError? {
        if let problem = Self.problem(in: request) { return .transport(problem) }
        bodyLimit = max(0, request.answerLimit)
        for field in request.headers {
            // "Name:" alone would remove the field; curl sends "Name;" as an empty one.
            let line = field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            guard append(line, curl) else { return .unavailable("curl_slist_append failed") }
        }
        // An empty value removes curl's own field: Expect: 100-continue, which it adds to
        // bodies over 1 KiB and then waits for, and a form content type the body may not be.
        let hasContentType = request.headers.contains { $0.name.lowercased() == "content-type" }
        for line in hasContentType ? ["Expect:"] : ["Expect:", "Content-Type:"] {
            guard append(line, curl) else { return .unavailable("curl_slist_append failed") }
        }
        let box = Unmanaged.passUnretained(self).toOpaque()
        if let receive = request.receive { stream = (receive, handle, curl) }
        var results = [
            curl.set(handle, CURLOPT_URL, request.url),
            curl.set(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
            curl.set(handle, CURLOPT_FOLLOWLOCATION, 0),
            // Straight to the host named: never through a proxy that http_proxy or all_proxy
            // names, which would see the signed bodies and the secure values they carry.
            curl.set(handle, CURLOPT_PROXY, ""),
            curl.set(handle, CURLOPT_NOSIGNAL, 1),
            curl.set(handle, CURLOPT_TCP_NODELAY, 1),
            curl.set(handle, CURLOPT_TCP_KEEPALIVE, 1),
            curl.set(handle, CURLOPT_HTTPHEADER, pointer: headerList),
            curl.set(handle, CURLOPT_ERRORBUFFER, pointer: errorBuffer),
            curl.set(handle, CURLOPT_WRITEDATA, pointer: box),
            curl.set(handle, CURLOPT_WRITEFUNCTION, callback: Self.receive),
        ]
        if let file = request.certificateAuthorities {
            // Instead of the system's CAs, not besides them: Debian's libcurl also reads a
            // folder of them (its CAPATH, /etc/ssl/certs) unless told not to.
            results.append(curl.set(handle, CURLOPT_CAINFO, file))
            results.append(curl.set(handle, CURLOPT_CAPATH, pointer: nil))
        }
        if stream == nil, !request.timeoutIsSilence {
            results.append(curl.set(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout)))
        } else {
            // A stream lasts as long as it has something to say: it ends when it falls silent.
            silenceLimit = Int64(Self.milliseconds(request.timeout)) * 1_000_000
            lastHeard = SystemClock.monotonicNanoseconds()
        }
        if request.method == "GET" {
            results.append(curl.set(handle, CURLOPT_HTTPGET, 1))
        } else {
            if request.method != "POST" { results.append(curl.set(handle, CURLOPT_CUSTOMREQUEST, request.method)) }
            // An empty body still needs a pointer: with none, curl would read the body from stdin.
            let body = request.body.isEmpty ? [0] : request.body
            // The size first, so that curl copies that many bytes rather than up to a NUL.
            results.append(curl.set(handle, CURLOPT_POSTFIELDSIZE_LARGE, offset: request.body.count))
            results.append(body.withUnsafeBytes { curl.set(handle, CURLOPT_COPYPOSTFIELDS, pointer: $0.baseAddress) })
        }
        if let refused = results.first(where: { $0 != CURLE_OK }) {
            return .unavailable("libcurl refused an option: \(curl.text(refused))")
        }
        return nil
    }

    /// The outcome of a finished transfer, read from the handle before it is reset.
    func outcome(_ handle: LibCurl.Easy, _ code: CURLcode, _ curl: LibCurl) -> Result<HTTPClientResponse, HTTPClientError> {
        if overflowed { return .failure(.answerTooLarge(limit: bodyLimit)) }
        switch code {
        case CURLE_OK:
            let head = Self.head(handle, curl)
            return .success(
                HTTPClientResponse(status: head.status, contentType: head.contentType, retryAfterSeconds: head.retryAfterSeconds, body: body))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timedOut)
        default:
            let detail = String(cString: errorBuffer)
            return .failure(.transport(detail.isEmpty ? curl.text(code) : detail))
        }
    }

    private func append(_ line: String, _ curl: LibCurl) -> Bool {
        guard let list = curl.slistAppend(headerList, line) else { return false }
        headerList = list
        return true
    }

    /// Why the request cannot be sent as given: a NUL would cut the URL short, and a line
    /// break in a header field would start another field (or another request).
    private static func problem(in request: HTTPClientRequest) -> String? {
        if request.url.utf8.contains(0) { return "the URL holds a NUL byte" }
        for field in request.headers {
            if field.name.isEmpty || field.name.utf8.contains(where: { $0 == UInt8(ascii: ":") || $0 <= 32 }) {
                return "the header field name \"\(field.name)\" is not a token"
            }
            if field.value.utf8.contains(where: { $0 == 0 || $0 == 10 || $0 == 13 }) {
                return "the value of the header field \(field.name) holds a line break or NUL"
            }
        }
        return nil
    }

    /// The timeout in whole milliseconds, rounded up and at least 1 (0 would mean none), and
    /// at most what a 32-bit `long` holds.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, seconds > 0 || attoseconds > 0 else { return 1 }
        let limit = Int(Int32.max)
        guard seconds < Int64(limit / 1000) else { return limit }
        let fraction = (max(0, attoseconds) + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(1, min(limit, Int(seconds) * 1000 + Int(fraction)))
    }

    /// The answer's head as the handle read it.
    private static func head(_ handle: LibCurl.Easy, _ curl: LibCurl) -> HTTPClientHead {
        // curl reads `Retry-After`'s seconds or date; 0 when the answer has none.
        HTTPClientHead(
            status: curl.info(handle, CURLINFO_RESPONSE_CODE) ?? 0, contentType: curl.info(handle, text: CURLINFO_CONTENT_TYPE),
            retryAfterSeconds: curl.info(handle, offset: CURLINFO_RETRY_AFTER).flatMap { $0 > 0 ? $0 : nil })
    }

    /// curl's write callback: keeps the answer's bytes up to ``bodyLimit``; returning less
    /// than it was given makes curl abort the transfer.
    private static let receive: LibCurl.WriteCallback = { data, size, count, box in
        guard let box else { return 0 }
        return Unmanaged<Transfer>.fromOpaque(box).takeUnretainedValue().receive(data, size: size, count: count)
    }

    /// Whether the transfer has heard nothing for longer than its ``silenceLimit``.
    func isSilent(at now: Int64) -> Bool {
        guard let silenceLimit else { return false }
        return now - lastHeard > silenceLimit
    }

    private func receive(_ data: UnsafeMutablePointer<CChar>?, size: Int, count: Int) -> Int {
        let (length, overflow) = size.multipliedReportingOverflow(by: count)
        if silenceLimit != nil, length > 0 { lastHeard = SystemClock.monotonicNanoseconds() }
        if let stream, !overflow {
            guard let data, length > 0 else { return length }
            let bytes = Array(UnsafeRawBufferPointer(start: data, count: length))
            let head = streamHead ?? Self.head(stream.handle, stream.curl)
            streamHead = head
            return stream.receive(head, bytes) ? length : 0
        }
        guard !overflow, length <= bodyLimit - body.count else {
            overflowed = true
            return 0
        }
        guard let data, length > 0 else { return length }
        body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
        return length
    }
}
