internal import CMicroHTTPD
import HTTPTypes
import Synchronization
import TabulaPlatform

/// A request's life on its connection's thread: its first access-handler call, its body,
/// its dispatch to the handler, and its completion.
extension ServerCore {

    /// First access-handler call: the headers are in. Returns YES without queueing unless
    /// the request must be refused (queueing now makes libmicrohttpd close the connection,
    /// which is right for a refusal and wrong for everything else: no keep-alive).
    /// `targetIsSound` is false for a target that is not UTF-8 or that a NUL byte cut short.
    func begin(
        _ connection: OpaquePointer, info: ConnectionInfo?, url: String, targetIsSound: Bool, method: String, version: String
    ) -> (RequestContext, MHD_Result) {
        let context = RequestContext(connection: connection, method: method, rawURL: Request.originPath(of: url), version: version)
        context.activity = info?.activity
        context.activity?.begin()
        counts.add(1, to: .inProgress)
        var scan = HeaderScan()
        withUnsafeMutablePointer(to: &scan) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, HeaderScan.collect, pointer)
        }
        context.headers = scan.headers
        context.clientAddress = info?.address ?? SocketAddress.describe(tabula_client_address(connection))
        if let reason = scan.framingProblem(maxBodyBytes: configuration.maxBodyBytes, version: version) {
            return (context, refuse(context, reason))
        }
        if !targetIsSound {
            return (context, refuse(context, .malformedPath))
        }
        return (context, .YES)
    }

    /// First access-handler call of a GET, when the handler takes unparsed GETs: its quick
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
        withUnsafeTemporaryAllocation(of: UnparsedHeader.self, capacity: UnparsedGet.maxHeaders) { buffer in
            var scan = UnparsedGetScan(buffer: buffer)
            withUnsafeMutablePointer(to: &scan) { pointer in
                _ = MHD_get_connection_values_n(connection, .HEADER_KIND, UnparsedGetScan.collect, pointer)
            }
            guard scan.qualifies else { return }
            let request = UnparsedGet(
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

    /// Second access-handler call of a quick request: queues its prepared answer (an unparsed
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
                return (now - since) / 1_000_000_000 >= Int64(configuration.connectionTimeoutSeconds) ? .NO : .YES
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
        guard context.delivery.deliveryState == .answered, let response = context.response else { return .NO }
        return queue(response, on: context)
    }

    func dispatch(_ context: RequestContext) -> MHD_Result {
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
        counts.add(1, to: .inHandler)
        handler.handle(request, responder: Responder(context: context, core: self))
        counts.add(-1, to: .inHandler)
        // Fast path: the handler answered before returning.
        if context.delivery.deliveryState == .answeredWhileDispatching, let response = context.response {
            return queue(response, on: context)
        }
        // Otherwise the connection is parked until the answer comes, from any thread; once a
        // shutdown has answered the parked ones, the answer is its refusal, at once.
        let refused = state.withLock { state in
            state.suspended[ObjectIdentifier(context)] = context
            return state.refusesToPark
        }
        if refused { deliver(handler.refusal(.shuttingDown, under: configuration), to: context) }
        switch context.delivery.move(DeliveryStateMachine.handlerReturned) {
        case .queue:
            _ = state.withLock { $0.suspended.removeValue(forKey: ObjectIdentifier(context)) }
            guard let response = context.response else { return .NO }
            return queue(response, on: context)
        case .impossible:
            return .NO
        case .suspend:
            MHD_suspend_connection(context.connection)
            switch context.delivery.move(DeliveryStateMachine.suspended) {
            case .wait: break
            case .resume: resume(context.connection)
            case .impossible: return .NO
            }
            return .YES
        }
    }

    func refuse(_ context: RequestContext, _ reason: RejectionReason) -> MHD_Result {
        observer.requestRejected(reason)
        var response = handler.refusal(reason, under: configuration)
        response.closesConnection = true
        response.rejection = nil  // counted once, by requestRejected
        return queue(response, on: context)
    }

    func queue(_ response: Response, on context: RequestContext) -> MHD_Result {
        let closes = response.closesConnection || !accepting.load(ordering: .relaxed)
        context.queued = true
        context.statusSent = response.status.code
        context.route = response.route
        context.logContext = response.logContext
        context.rejection = response.rejection
        if let stream = response.stream { return start(stream, response, on: context) }
        return send(response, closingConnection: closes, on: context.connection)
    }

    /// Queues a streamed response. A stream no longer counts as a request in progress: a
    /// shutdown ends streams at once instead of waiting for them.
    private func start(_ stream: ServerStream, _ response: Response, on context: RequestContext) -> MHD_Result {
        stream.connection = context.connection
        if let seconds = configuration.streamUnacknowledgedSeconds {
            // The kernel's field is milliseconds in 32 bits: some seven weeks at most.
            _ = tabula_set_unacknowledged_timeout(context.connection, UInt32(clamping: seconds > Int.max / 1000 ? Int.max : seconds * 1000))
        }
        stream.core = self
        context.stream = stream
        counts.add(-1, to: .inProgress)
        let ends = state.withLock { state in
            state.streams[ObjectIdentifier(stream)] = stream
            return state.endsStreams
        }
        if ends { stream.ending.store(true, ordering: .releasing) }
        // libmicrohttpd 0.9.75 ends a chunked answer to HEAD with the last chunk all the
        // same, bytes a client on the connection would take for the start of the next
        // answer; unchunked, closing the connection, it sends the head alone.
        let headOnly = context.method == "HEAD"
        guard let handle = MHDResponseFactory.make(headerFields: response.headerFields, stream: stream, headOnly: headOnly) else {
            return .NO
        }
        defer { MHD_destroy_response(handle) }
        return MHD_queue_response(context.connection, UInt32(response.status.code), handle)
    }

    /// Queues a response: a prepared one as it is, unless the connection is to close after
    /// it (then, like a per-request one, as a copy with `Connection: close`).
    func send(_ response: Response, closingConnection closes: Bool, on connection: OpaquePointer) -> MHD_Result {
        switch response.storage {
        case .prepared(let prepared) where !closes:
            return MHD_queue_response(connection, UInt32(prepared.status.code), prepared.handle)
        default:
            guard
                let handle = MHDResponseFactory.make(
                    headerFields: response.headerFields, body: response.body, closesConnection: closes)
            else { return .NO }
            defer { MHD_destroy_response(handle) }
            return MHD_queue_response(connection, UInt32(response.status.code), handle)
        }
    }

    /// libmicrohttpd's completion callback: the request is over, answered or not.
    func complete(_ context: RequestContext, termination: MHD_RequestTerminationCode) {
        if let stream = context.stream {
            _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
            stream.closed()
        } else {
            counts.add(-1, to: .inProgress)
        }
        context.activity?.end()
        if context.delivery.deliveryState.isParked {
            _ = state.withLock { $0.suspended.removeValue(forKey: ObjectIdentifier(context)) }
        }
        guard context.queued else {
            logger.debug(
                "request ended without an answer",
                metadata: [
                    "method": "\(context.method)", "path": "\(context.rawURL)", "termination": "\(termination.rawValue)",
                ])
            return
        }
        observer.requestCompleted(
            RequestSummary(
                method: context.method, path: context.rawURL, status: context.statusSent, route: context.route,
                duration: ContinuousClock.now - context.receivedAt, remoteAddress: context.clientAddress,
                logContext: context.logContext, rejection: context.rejection))
    }

    /// The completion callback of a quick request: the same report as ``complete(_:termination:)``.
    func complete(_ request: QuickRequest, termination: MHD_RequestTerminationCode) {
        counts.add(-1, to: .inProgress)
        defer { request.end() }
        guard request.queued, request.responseHandle != nil else {
            logger.debug(
                "request ended without an answer",
                metadata: [
                    "method": "GET", "path": "\(request.summary.path)", "termination": "\(termination.rawValue)",
                ])
            return
        }
        request.finish(at: SystemClock.monotonicNanoseconds())
        observer.requestCompleted(request.summary)
    }
}
