import TabulaPlatform
internal import CMicroHTTPD
import HTTPTypes
import Logging
import Synchronization

/// The server's shared state, passed to libmicrohttpd's callbacks as their `cls`.
final class ServerCore: @unchecked Sendable {
    let configuration: ServerConfiguration
    let handler: any HTTPHandler
    let observer: any HTTPServerObserver
    let logger: Logger

    /// The daemon, and requests parked while their answer is computed elsewhere (so that a
    /// shutdown can answer them). Touched on slow paths only.
    struct State {
        var daemon: OpaquePointer?
        var suspended: [ObjectIdentifier: RequestContext] = [:]
    }

    let state = Locked(State())
    let accepting = Atomic<Bool>(true)
    let stopped = Atomic<Bool>(false)
    /// Requests in progress and quick answers, counted on each thread's own cache lines
    /// (one shared counter cost every request a line passed between cores).
    let counts = RequestCounts()
    /// `MHD_resume_connection` calls under way; the daemon is stopped only at zero.
    let resumesInProgress = Atomic<Int>(0)
    /// Open connections per client address, for the per-address limit.
    private let connectionsByAddress = Locked<[String: Int]>([:])
    /// Every open connection, so that a shutdown can close the idle ones. Entries leave at
    /// the connection's close notification, which libmicrohttpd sends before it closes the
    /// socket: a socket read under this lock is the connection's own.
    private let openConnections = Locked<[ObjectIdentifier: ConnectionInfo]>([:])
    /// Read once: whether GETs get a header pass for ``HTTPHandler/quickAnswer(_:)``.
    let offersPlainGets: Bool

    init(configuration: ServerConfiguration, handler: any HTTPHandler, observer: any HTTPServerObserver, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.logger = logger
        offersPlainGets = handler.answersPlainGets
    }

    // MARK: Connections

    /// Accept-policy callback: admits a new connection unless its address is at the limit.
    func admit(_ address: String) -> Bool {
        let limit = configuration.maxConnectionsPerIP
        let admitted = connectionsByAddress.withLock { counts -> Bool in
            let open = counts[address, default: 0]
            guard limit == 0 || open < limit else { return false }
            counts[address] = open + 1
            return true
        }
        if !admitted { observer.requestRejected(.connectionLimit) }
        return admitted
    }

    /// A connection admitted by ``admit(_:)`` closed.
    func release(_ address: String) {
        connectionsByAddress.withLock { counts in
            let open = counts[address, default: 0] - 1
            counts[address] = open > 0 ? open : nil
        }
    }

    /// A connection started (its notification).
    func opened(_ info: ConnectionInfo) {
        openConnections.withLock { $0[ObjectIdentifier(info)] = info }
    }

    /// A connection closed (its notification, before libmicrohttpd closes its socket).
    func closed(_ info: ConnectionInfo) {
        openConnections.withLock { $0[ObjectIdentifier(info)] = nil }
        release(info.address)
    }

    /// Closes the connections that wait for their next request, at the start of a
    /// shutdown: a client (a proxy's connection pool) then opens a new connection, to
    /// another instance, instead of sending its next request to one that is stopping.
    /// Reading is shut down: libmicrohttpd sees the end of the stream and closes the
    /// connection on its own thread. A request that arrives in that instant is lost as on
    /// any closing keep-alive connection, which clients retry when it is idempotent.
    func closeIdleConnections() {
        openConnections.withLock { connections in
            for info in connections.values where info.activity.isIdle && info.socket >= 0 {
                shutdownSocket(info.socket, Int32(SHUT_RD))
            }
        }
    }
    // MARK: Request lifecycle

    /// First access-handler call: the headers are in. Returns YES without queueing unless
    /// the request must be refused (queueing now makes libmicrohttpd close the connection,
    /// which is right for a refusal and wrong for everything else: no keep-alive).
    /// `targetIsSound` is false for a target that is not UTF-8 or that a NUL byte cut short.
    func begin(
        _ connection: OpaquePointer, info: ConnectionInfo?, url: String, targetIsSound: Bool, method: String, version: String
    ) -> (RequestContext, MHD_Result) {
        let context = RequestContext(connection: connection, method: method, rawURL: url, version: version)
        context.activity = info?.activity
        context.activity?.begin()
        counts.add(1, to: .inProgress)
        var scan = HeaderScan()
        withUnsafeMutablePointer(to: &scan) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, HeaderScan.collect, pointer)
        }
        context.headers = scan.headers
        context.clientAddress = info?.address ?? SocketAddress.describe(tabula_client_address(connection))
        if let reason = scan.framingProblem(maxBodyBytes: configuration.maxBodyBytes) {
            return (context, refuse(context, reason))
        }
        if !targetIsSound {
            return (context, refuse(context, .malformedPath))
        }
        return (context, .YES)
    }

    /// First access-handler call of a GET, when the handler takes plain GETs: its quick
    /// answer, or `nil` for the full path. Nothing is allocated unless it answers. Unretained:
    /// the connection's `info` keeps the request.
    func quickAnswer(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, version: UnsafePointer<CChar>, info: ConnectionInfo
    ) -> Unmanaged<QuickRequest>? {
        let pathLength = strlen(url)
        // Equal lengths: no query was split off; the version check: no NUL cut the target.
        guard pathLength == info.targetLength, tabula_target_is_whole(url, version, info.targetLength) != 0 else { return nil }
        let receivedAt = SystemClock.monotonicNanoseconds()
        // Set by the closure rather than returned from it: a value returned through
        // withUnsafeTemporaryAllocation's generic result is copied once more.
        var answer: QuickAnswer?
        withUnsafeTemporaryAllocation(of: PlainHeader.self, capacity: PlainGet.maxHeaders) { buffer in
            var scan = PlainGetScan(buffer: buffer)
            withUnsafeMutablePointer(to: &scan) { pointer in
                _ = MHD_get_connection_values_n(connection, .HEADER_KIND, PlainGetScan.collect, pointer)
            }
            guard scan.isPlain else { return }
            let request = PlainGet(
                path: UnsafeRawBufferPointer(start: url, count: pathLength),
                headers: UnsafeBufferPointer(rebasing: buffer[0..<scan.count]))
            answer = handler.quickAnswer(request)
        }
        guard let answer = answer.take() else { return nil }
        counts.add(1, to: .inProgress, and: .quickAnswers)
        // The access log's path comes from the request's own bytes, kept by the connection:
        // a string shared by every request would have its reference count bounce between
        // the threads.
        info.quickRequest.begin(answer: consume answer, target: UnsafeRawBufferPointer(start: url, count: pathLength), receivedAt: receivedAt)
        return Unmanaged.passUnretained(info.quickRequest)
    }

    /// Second access-handler call of a quick request: queues its prepared answer (a plain
    /// GET has no body, so there is nothing to read first).
    func proceed(_ request: QuickRequest, connection: OpaquePointer, uploadSize: UnsafeMutablePointer<Int>) -> MHD_Result {
        uploadSize.pointee = 0
        guard !request.queued, let handle = request.responseHandle else { return .YES }
        request.queued = true
        guard accepting.load(ordering: .relaxed) else {
            guard let prepared = request.answer?.response else { return .NO }
            return send(Response(prepared), closingConnection: true, on: connection)
        }
        return MHD_queue_response(connection, UInt32(request.summary.status), handle)
    }

    /// Later access-handler calls: a piece of the body, or (size 0) the end of the request.
    func proceed(_ context: RequestContext, uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>) -> MHD_Result {
        let size = uploadSize.pointee
        if size > 0 {
            uploadSize.pointee = 0
            if context.refusal != nil || context.body.count + size > configuration.maxBodyBytes {
                // Over the limit (a chunked body has no Content-Length to check up front):
                // libmicrohttpd 0.9.75 takes no answer until the body ends, so the rest is
                // read and discarded, then 413 answered and the connection closed. A client
                // still sending after the connection timeout is cut off, without an answer.
                context.refusal = context.refusal ?? .bodyTooLarge
                context.body = []
                let now = SystemClock.monotonicNanoseconds()
                let since = context.discardingSince ?? now
                context.discardingSince = since
                return now - since > Int64(configuration.connectionTimeoutSeconds) * 1_000_000_000 ? .NO : .YES
            }
            if let uploadData {
                context.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: size))
            }
            return .YES
        }
        if let refusal = context.refusal, !context.dispatched {
            context.dispatched = true
            return refuse(context, refusal)
        }
        guard context.dispatched else { return dispatch(context) }
        // Resumed: the handler has delivered its response.
        _ = state.withLock { $0.suspended.removeValue(forKey: ObjectIdentifier(context)) }
        guard context.delivery.load(ordering: .acquiring) == RequestContext.Delivery.answered, let response = context.response else {
            return .NO
        }
        return queue(response, on: context)
    }

    private func dispatch(_ context: RequestContext) -> MHD_Result {
        context.dispatched = true
        guard let method = HTTPRequest.Method(context.method) else {
            return refuse(context, .malformedRequest)
        }
        var rawQuery: [(name: String, value: String?)] = []
        withUnsafeMutablePointer(to: &rawQuery) { pointer in
            _ = MHD_get_connection_values_n(context.connection, .GET_ARGUMENT_KIND, QueryScan.collect, pointer)
        }
        let request = Request(
            method: method, rawPath: context.rawURL, rawQuery: rawQuery, headers: context.headers,
            body: context.body, version: context.version, remoteAddress: context.clientAddress,
            receivedAt: context.receivedAt)
        context.body = []
        handler.handle(request, responder: Responder(context: context, core: self))
        typealias Delivery = RequestContext.Delivery
        // Fast path: the handler answered before returning.
        if context.delivery.load(ordering: .acquiring) == Delivery.answeredWhileDispatching, let response = context.response {
            return queue(response, on: context)
        }
        // Otherwise park the connection until the answer comes (from any thread).
        state.withLock { $0.suspended[ObjectIdentifier(context)] = context }
        let (suspending, _) = context.delivery.compareExchange(
            expected: Delivery.dispatching, desired: Delivery.suspending, ordering: .acquiringAndReleasing)
        guard suspending else {
            _ = state.withLock { $0.suspended.removeValue(forKey: ObjectIdentifier(context)) }
            guard let response = context.response else { return .NO }
            return queue(response, on: context)
        }
        MHD_suspend_connection(context.connection)
        let (parked, _) = context.delivery.compareExchange(
            expected: Delivery.suspending, desired: Delivery.suspended, ordering: .acquiringAndReleasing)
        if !parked {
            // The answer came while suspending: resume at once to queue it.
            resume(context)
        }
        return .YES
    }

    /// Called by a ``Responder`` from any thread; only the first call counts.
    func deliver(_ response: Response, to context: RequestContext) {
        guard context.claimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        context.response = response
        typealias Delivery = RequestContext.Delivery
        while true {
            switch context.delivery.load(ordering: .acquiring) {
            case Delivery.dispatching:
                if context.delivery.compareExchange(
                    expected: Delivery.dispatching, desired: Delivery.answeredWhileDispatching, ordering: .acquiringAndReleasing
                ).exchanged { return }
            case Delivery.suspending:
                // The connection's thread sees this when it finishes suspending, and resumes.
                if context.delivery.compareExchange(
                    expected: Delivery.suspending, desired: Delivery.answered, ordering: .acquiringAndReleasing
                ).exchanged { return }
            case Delivery.suspended:
                if context.delivery.compareExchange(
                    expected: Delivery.suspended, desired: Delivery.answered, ordering: .acquiringAndReleasing
                ).exchanged {
                    resume(context)
                    return
                }
            default:
                return
            }
        }
    }

    /// Resumes a parked connection, unless the daemon is stopping for good. No lock of ours
    /// is held across `MHD_resume_connection`, since libmicrohttpd takes its own locks there.
    private func resume(_ context: RequestContext) {
        resumesInProgress.wrappingAdd(1, ordering: .acquiringAndReleasing)
        defer { resumesInProgress.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
        guard !stopped.load(ordering: .acquiring) else { return }
        MHD_resume_connection(context.connection)
    }

    private func refuse(_ context: RequestContext, _ reason: RejectionReason) -> MHD_Result {
        observer.requestRejected(reason)
        var response = handler.refusal(reason)
        response.closesConnection = true
        response.rejection = nil  // counted once, by requestRejected
        return queue(response, on: context)
    }

    private func queue(_ response: Response, on context: RequestContext) -> MHD_Result {
        let closes = response.closesConnection || !accepting.load(ordering: .relaxed)
        context.queued = true
        context.statusSent = response.status.code
        context.route = response.route
        context.logContext = response.logContext
        context.rejection = response.rejection
        return send(response, closingConnection: closes, on: context.connection)
    }

    /// Queues a response: a prepared one as it is, unless the connection is to close after
    /// it (then, like a per-request one, as a copy with `Connection: close`).
    private func send(_ response: Response, closingConnection closes: Bool, on connection: OpaquePointer) -> MHD_Result {
        switch response.storage {
        case .prepared(let prepared) where !closes:
            return MHD_queue_response(connection, UInt32(prepared.status.code), prepared.handle)
        default:
            guard let handle = MHDResponseFactory.make(
                headerFields: response.headerFields, body: response.body, closesConnection: closes)
            else { return .NO }
            defer { MHD_destroy_response(handle) }
            return MHD_queue_response(connection, UInt32(response.status.code), handle)
        }
    }

    /// libmicrohttpd's completion callback: the request is over, answered or not.
    func complete(_ context: RequestContext, termination: MHD_RequestTerminationCode) {
        counts.add(-1, to: .inProgress)
        context.activity?.end()
        if context.delivery.load(ordering: .relaxed) >= RequestContext.Delivery.suspending {
            _ = state.withLock { $0.suspended.removeValue(forKey: ObjectIdentifier(context)) }
        }
        guard context.queued else {
            logger.debug("request ended without an answer", metadata: [
                "method": "\(context.method)", "path": "\(context.rawURL)", "termination": "\(termination.rawValue)",
            ])
            return
        }
        observer.requestCompleted(RequestSummary(
            method: context.method, path: context.rawURL, status: context.statusSent, route: context.route,
            duration: ContinuousClock.now - context.receivedAt, remoteAddress: context.clientAddress,
            logContext: context.logContext, rejection: context.rejection))
    }

    /// The completion callback of a quick request: the same report as ``complete(_:termination:)``.
    func complete(_ request: QuickRequest, termination: MHD_RequestTerminationCode) {
        counts.add(-1, to: .inProgress)
        defer { request.end() }
        guard request.queued, request.responseHandle != nil else {
            logger.debug("request ended without an answer", metadata: [
                "method": "GET", "path": "\(request.summary.path)", "termination": "\(termination.rawValue)",
            ])
            return
        }
        request.finish(at: SystemClock.monotonicNanoseconds())
        observer.requestCompleted(request.summary)
    }

    /// libmicrohttpd's error log, routed into swift-log; refusals it makes on its own are
    /// recognized here so that metrics count them.
    func log(_ message: String) {
        let text = message.hasSuffix("\n") ? String(message.dropLast()) : message
        if let reason = Self.rejection(inLogMessage: text) { observer.requestRejected(reason) }
        logger.notice("libmicrohttpd: \(text)")
    }

    /// The refusal a libmicrohttpd log line reports, if any. libmicrohttpd answers some
    /// requests itself (HTTP/1.1 without Host, headers or a target over the connection
    /// memory, an HTTP version it does not speak, an unreadable Content-Length) and logs
    /// one "Error processing request (HTTP response code is N …)" line per refusal, often
    /// after a line naming the cause: only the first kind is counted, so that each refusal
    /// counts once, by its status.
    static func rejection(inLogMessage text: String) -> RejectionReason? {
        if let marker = text.firstRange(of: "Error processing request (HTTP response code is ") {
            let digits = text[marker.upperBound...].prefix { $0.isASCII && $0.isWholeNumber }
            switch Int(digits) {
            case 413: return .bodyTooLarge
            case 414: return .uriTooLong
            case 431: return .headersTooLarge
            case 501: return .unsupportedTransferEncoding  // what libmicrohttpd 1.0 answers with 501
            case 505: return .httpVersionNotSupported
            case let status? where (400..<500).contains(status): return .malformedRequest
            default: return nil
            }
        }
        let lowered = text.lowercased()
        if lowered.contains("connection limit") || lowered.contains("too many connections") { return .connectionLimit }
        return nil
    }
}

/// What the first access-handler call learns from the headers.
struct HeaderScan {
    var headers = RequestHeaders()
    var contentLengths: [String] = []
    var transferEncodings: [String] = []
    var hostCount = 0
    var hasMalformedName = false

    /// A framing problem that makes the request unsafe to read (request smuggling, or a
    /// body announced over the limit).
    func framingProblem(maxBodyBytes: Int) -> RejectionReason? {
        if hasMalformedName { return .malformedHeader }
        if hostCount > 1 { return .duplicateHost }
        if contentLengths.count > 1 { return .duplicateContentLength }
        if !contentLengths.isEmpty && !transferEncodings.isEmpty { return .contentLengthWithTransferEncoding }
        if !transferEncodings.isEmpty {
            let codings = transferEncodings.joined(separator: ",").split(separator: ",")
                .map { $0.trimmingSpaces().lowercased() }
            if codings != ["chunked"] { return .unsupportedTransferEncoding }
        }
        if let length = contentLengths.first.flatMap({ Int($0.trimmingSpaces()) }), length > maxBodyBytes {
            return .bodyTooLarge
        }
        return nil
    }

    static let contentLength: StaticString = "content-length"
    static let transferEncoding: StaticString = "transfer-encoding"
    static let host: StaticString = "host"

    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let scan = cls.assumingMemoryBound(to: HeaderScan.self)
        let name = UnsafeRawBufferPointer(start: key, count: keySize)
        let bytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
        scan.pointee.headers.append(name: name, value: bytes)
        if name.isEmpty || !name.allSatisfy(ASCII.isTokenCharacter) {
            scan.pointee.hasMalformedName = true
        } else if ASCII.equalIgnoringCase(name, host) {
            scan.pointee.hostCount += 1
        } else if ASCII.equalIgnoringCase(name, contentLength) {
            scan.pointee.contentLengths.append(String(decoding: bytes, as: UTF8.self))
        } else if ASCII.equalIgnoringCase(name, transferEncoding) {
            scan.pointee.transferEncodings.append(String(decoding: bytes, as: UTF8.self))
        }
        return .YES
    }
}

/// Collects query arguments as sent.
enum QueryScan {
    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let arguments = cls.assumingMemoryBound(to: [(name: String, value: String?)].self)
        let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
        let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
        arguments.pointee.append((name, text))
        return .YES
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    public func trimmingSpaces() -> String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
