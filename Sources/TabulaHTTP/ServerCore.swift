#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CMicroHTTPD
import HTTPTypes
import Logging

/// The server's shared state, passed to libmicrohttpd's callbacks as their `cls`.
final class ServerCore: @unchecked Sendable {
    let configuration: ServerConfiguration
    let handler: any HTTPHandler
    let observer: any HTTPServerObserver
    let logger: Logger

    struct State {
        var daemon: OpaquePointer?
        var accepting = true
        var stopped = false
        var inFlight = 0
        /// Parked requests, so that a shutdown can answer them before stopping.
        var suspended: [ObjectIdentifier: RequestContext] = [:]
        /// `MHD_resume_connection` calls under way; the daemon is stopped only at zero.
        var resumesInProgress = 0
    }

    let state = Locked(State())
    /// Open connections per client address, for the per-address limit.
    private let connectionsByAddress = Locked<[String: Int]>([:])

    init(configuration: ServerConfiguration, handler: any HTTPHandler, observer: any HTTPServerObserver, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.logger = logger
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

    // MARK: Request lifecycle

    /// First access-handler call: the headers are in. Returns YES without queueing unless
    /// the request must be refused (queueing now makes libmicrohttpd close the connection,
    /// which is right for a refusal and wrong for everything else: no keep-alive).
    func begin(_ connection: OpaquePointer, url: String, method: String, version: String) -> (RequestContext, MHD_Result) {
        let context = RequestContext(connection: connection, method: method, rawURL: url, version: version)
        let accepting = state.withLock { state in
            state.inFlight += 1
            return state.accepting
        }
        var scan = HeaderScan()
        withUnsafeMutablePointer(to: &scan) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, HeaderScan.collect, pointer)
        }
        context.headerFields = scan.fields
        context.remoteAddress = SocketAddress.describe(tabula_client_address(connection))
        if !accepting {
            return (context, refuse(context, .shuttingDown))
        }
        if let reason = scan.framingProblem(maxBodyBytes: configuration.maxBodyBytes) {
            return (context, refuse(context, reason))
        }
        return (context, .YES)
    }

    /// Later access-handler calls: a piece of the body, or (size 0) the end of the request.
    func proceed(_ context: RequestContext, uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>) -> MHD_Result {
        let size = uploadSize.pointee
        if size > 0 {
            uploadSize.pointee = 0
            if context.refusal != nil || context.body.count + size > configuration.maxBodyBytes {
                // Over the limit (a chunked body has no Content-Length to check up front):
                // libmicrohttpd cannot answer before the body ends, so discard the rest,
                // up to a bound, then answer 413 and close.
                context.refusal = context.refusal ?? .bodyTooLarge
                context.body = []
                context.discardedBodyBytes += size
                return context.discardedBodyBytes > Self.maxDiscardedBodyBytes(configuration) ? .NO : .YES
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
        let response = context.delivery.withLock { delivery -> Response? in
            delivery.suspended = false
            return delivery.response
        }
        _ = state.withLock { $0.suspended.removeValue(forKey: ObjectIdentifier(context)) }
        guard let response else { return .NO }
        return queue(response, on: context)
    }

    /// A body this much over the limit is not worth reading to the end to answer 413.
    static func maxDiscardedBodyBytes(_ configuration: ServerConfiguration) -> Int {
        max(1 << 20, configuration.maxBodyBytes * 4)
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
            method: method, rawPath: context.rawURL, rawQuery: rawQuery, headerFields: context.headerFields,
            body: context.body, version: context.version, remoteAddress: context.remoteAddress,
            receivedAt: context.receivedAt)
        context.body = []
        handler.handle(request, responder: Responder(context: context, core: self))
        // Fast path: the handler answered before returning. Otherwise park the connection
        // until it does. Suspending under the delivery lock means `deliver` either finds
        // no suspension (and this thread queues its response) or a completed one it may
        // resume. No lock of ours is held across `MHD_resume_connection`, since
        // libmicrohttpd takes its own locks there.
        state.withLock { $0.suspended[ObjectIdentifier(context)] = context }
        let ready = context.delivery.withLock { delivery -> Response? in
            if let response = delivery.response { return response }
            delivery.suspended = true
            MHD_suspend_connection(context.connection)
            return nil
        }
        guard let ready else { return .YES }
        _ = state.withLock { $0.suspended.removeValue(forKey: ObjectIdentifier(context)) }
        return queue(ready, on: context)
    }

    /// Called by a ``Responder`` from any thread.
    func deliver(_ response: Response, to context: RequestContext) {
        let mustResume = context.delivery.withLock { delivery -> Bool in
            guard delivery.response == nil else { return false }
            delivery.response = response
            return delivery.suspended
        }
        guard mustResume else { return }
        // Never touch a connection of a daemon that is stopping for good.
        let allowed = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.resumesInProgress += 1
            return true
        }
        guard allowed else { return }
        MHD_resume_connection(context.connection)
        state.withLock { $0.resumesInProgress -= 1 }
    }

    private func refuse(_ context: RequestContext, _ reason: RejectionReason) -> MHD_Result {
        observer.requestRejected(reason)
        var response = handler.refusal(reason)
        response.closesConnection = true
        return queue(response, on: context)
    }

    private func queue(_ response: Response, on context: RequestContext) -> MHD_Result {
        let shuttingDown = state.withLock { !$0.accepting }
        let closes = response.closesConnection || shuttingDown
        context.delivery.withLock { delivery in
            delivery.queued = true
            delivery.statusSent = response.status.code
            delivery.route = response.route
            delivery.logContext = response.logContext
        }
        switch response.storage {
        case .prepared(let prepared) where !closes:
            return MHD_queue_response(context.connection, UInt32(prepared.status.code), prepared.handle)
        default:
            guard let handle = MHDResponseFactory.make(
                headerFields: response.headerFields, body: response.body, closesConnection: closes)
            else { return .NO }
            defer { MHD_destroy_response(handle) }
            return MHD_queue_response(context.connection, UInt32(response.status.code), handle)
        }
    }

    /// libmicrohttpd's completion callback: the request is over, answered or not.
    func complete(_ context: RequestContext, termination: MHD_RequestTerminationCode) {
        state.withLock { state in
            state.inFlight -= 1
            state.suspended.removeValue(forKey: ObjectIdentifier(context))
        }
        let delivery = context.delivery.withLock { $0 }
        guard delivery.queued else {
            logger.debug("request ended without an answer", metadata: [
                "method": "\(context.method)", "path": "\(context.rawURL)", "termination": "\(termination.rawValue)",
            ])
            return
        }
        observer.requestCompleted(RequestSummary(
            method: context.method, path: context.rawURL, status: delivery.statusSent, route: delivery.route,
            duration: ContinuousClock.now - context.receivedAt, remoteAddress: context.remoteAddress,
            logContext: delivery.logContext))
    }

    /// libmicrohttpd's error log, routed into swift-log; refusals it makes on its own are
    /// recognized here so that metrics count them.
    func log(_ message: String) {
        let text = message.hasSuffix("\n") ? String(message.dropLast()) : message
        if let reason = Self.rejection(inLogMessage: text) { observer.requestRejected(reason) }
        logger.notice("libmicrohttpd: \(text)")
    }

    static func rejection(inLogMessage text: String) -> RejectionReason? {
        let lowered = text.lowercased()
        if lowered.contains("connection limit") || lowered.contains("too many connections") { return .connectionLimit }
        if lowered.contains("431") || lowered.contains("header") && (lowered.contains("too large") || lowered.contains("not enough memory")) {
            return .headersTooLarge
        }
        if lowered.contains("host") && lowered.contains("header") { return .malformedRequest }
        return nil
    }
}

/// What the first access-handler call learns from the headers.
struct HeaderScan {
    var fields = HTTPFields()
    var contentLengths: [String] = []
    var transferEncodings: [String] = []

    /// A framing problem that makes the request unsafe to read (request smuggling, or a
    /// body announced over the limit).
    func framingProblem(maxBodyBytes: Int) -> RejectionReason? {
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

    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let scan = cls.assumingMemoryBound(to: HeaderScan.self)
        let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
        let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? ""
        switch name.lowercased() {
        case "content-length": scan.pointee.contentLengths.append(text)
        case "transfer-encoding": scan.pointee.transferEncodings.append(text)
        default: break
        }
        if let fieldName = HTTPField.Name(name) {
            scan.pointee.fields.append(HTTPField(name: fieldName, value: text))
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
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
