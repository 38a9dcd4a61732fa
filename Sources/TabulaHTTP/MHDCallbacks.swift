internal import CMicroHTTPD
import Synchronization

/// libmicrohttpd's callbacks. They are plain C function pointers (no captures, no actor
/// isolation: closures written in `main.swift` would be main-actor isolated and trap on
/// libmicrohttpd's threads) that find the ``ServerCore`` through their `cls` argument.
enum MHDCallbacks {
    static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadSize, requestSlot in
        guard let cls, let connection, let uploadSize, let requestSlot else { return .NO }
        // Every object here is reached through `_withUnsafeGuaranteedRef`: a reference taken
        // out with `takeUnretainedValue()` is retained and released around its use, and the
        // server's count is one cache line every thread writes on every request.
        return Unmanaged<ServerCore>.fromOpaque(cls)._withUnsafeGuaranteedRef { core in
            if let existing = requestSlot.pointee {
                return Unmanaged<RequestSlotEntry>.fromOpaque(existing)._withUnsafeGuaranteedRef { entry in
                    if entry.isQuick {
                        return core.proceed(unsafeDowncast(entry, to: QuickRequest.self), connection: connection, uploadSize: uploadSize)
                    }
                    return core.proceed(unsafeDowncast(entry, to: RequestContext.self), uploadData: uploadData, uploadSize: uploadSize)
                }
            }
            let info = tabula_socket_context(connection).map { Unmanaged<ConnectionInfo>.fromOpaque($0) }
            if core.offersUnparsedGets, let url, let version, let info, let method, MHDCallbacks.isGET(method),
                let quick = info._withUnsafeGuaranteedRef({ core.quickAnswer(connection, url: url, version: version, info: $0) })
            {
                // Unretained: the connection's ConnectionInfo keeps it, and outlives the request.
                requestSlot.pointee = quick.toOpaque()
                return .YES
            }
            return begin(core, connection, info: info?.takeUnretainedValue(), url: url, method: method, version: version, requestSlot: requestSlot)
        }
    }

    /// The first access-handler call of a request that takes the full path.
    private static func begin(
        _ core: ServerCore, _ connection: OpaquePointer, info: ConnectionInfo?, url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // String(cString:) would repair invalid UTF-8 into U+FFFD, hiding it from the router.
        let validURL = url.flatMap { String(validatingCString: $0) }
        var targetIsSound = url == nil || validURL != nil
        if let url, let version, let info {
            targetIsSound = targetIsSound && tabula_target_is_whole(url, version, info.targetLength) != 0
        }
        let (context, result) = core.begin(
            connection, info: info, url: validURL ?? url.map { String(cString: $0) } ?? "/", targetIsSound: targetIsSound,
            method: method.map { String(cString: $0) } ?? "", version: version.map { String(cString: $0) } ?? "")
        // The completion callback releases this reference.
        requestSlot.pointee = Unmanaged.passRetained(context).toOpaque()
        return result
    }

    static let requestCompleted: MHD_RequestCompletedCallback = { cls, _, requestSlot, termination in
        guard let cls, let requestSlot, let pointer = requestSlot.pointee else { return }
        requestSlot.pointee = nil
        Unmanaged<ServerCore>.fromOpaque(cls)._withUnsafeGuaranteedRef { core in
            let slot = Unmanaged<RequestSlotEntry>.fromOpaque(pointer)
            let isQuick = slot._withUnsafeGuaranteedRef { entry in
                guard entry.isQuick else { return false }
                core.complete(unsafeDowncast(entry, to: QuickRequest.self), termination: termination)
                return true
            }
            if !isQuick {
                // The reference the first access-handler call passed.
                core.complete(unsafeDowncast(slot.takeRetainedValue(), to: RequestContext.self), termination: termination)
            }
        }
    }

    /// Whether a method is exactly "GET", without making a string of it.
    private static func isGET(_ method: UnsafePointer<CChar>) -> Bool {
        method[0] == 0x47 && method[1] == 0x45 && method[2] == 0x54 && method[3] == 0
    }

    static let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
        guard let cls else { return .NO }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.admit(SocketAddress.describe(address)) ? .YES : .NO
    }

    /// Keeps a ``ConnectionInfo`` in each connection's socket context from its start to its
    /// end, so that requests need not format the client's address again.
    static let notifyConnection: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
        guard let cls, let connection, let socketContext else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        switch event {
        case .CONNECTION_NOTIFY_STARTED:
            let info = ConnectionInfo(
                address: SocketAddress.describe(tabula_client_address(connection)), socket: tabula_connection_socket(connection))
            socketContext.pointee = Unmanaged.passRetained(info).toOpaque()
            core.opened(info)
        case .CONNECTION_NOTIFY_CLOSED:
            guard let pointer = socketContext.pointee else {
                core.release(SocketAddress.describe(tabula_client_address(connection)))
                return
            }
            socketContext.pointee = nil
            // Before libmicrohttpd closes the socket: see ServerCore.closeIdleConnections.
            core.closed(Unmanaged<ConnectionInfo>.fromOpaque(pointer).takeRetainedValue())
        @unknown default:
            return
        }
    }

    /// libmicrohttpd's URI log callback, called with each request target before the query
    /// is split off: records the target's length for the access handler, which refuses a
    /// target a client-sent NUL byte cut short (see `tabula_target_is_whole`). Returns NULL,
    /// so the request's context slot stays empty for the access handler.
    static let targetCheck: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
        _, uri, connection in
        guard let uri, let connection, let info = tabula_socket_context(connection) else { return nil }
        Unmanaged<ConnectionInfo>.fromOpaque(info)._withUnsafeGuaranteedRef { $0.targetLength = strlen(uri) }
        return nil
    }

    /// A streamed response's content reader (see ``ServerStream/read(into:capacity:)``).
    static let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, capacity in
        guard let cls, let buffer else { return ServerStream.endOfStream }
        return Unmanaged<ServerStream>.fromOpaque(cls)._withUnsafeGuaranteedRef { $0.read(into: buffer, capacity: capacity) }
    }

    /// A streamed response was destroyed: the reference ``MHDResponseFactory`` passed.
    static let streamReleased: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<ServerStream>.fromOpaque(cls).release()
    }

    static let logger: MHD_LogCallback = { cls, format, arguments in
        guard let cls, let format, let arguments else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        var buffer = [CChar](repeating: 0, count: 1024)
        let length = buffer.withUnsafeMutableBufferPointer { pointer in
            tabula_format_log(pointer.baseAddress, pointer.count, format, arguments)
        }
        guard length > 0 else { return }
        let bytes = buffer.prefix(min(Int(length), buffer.count - 1)).map { UInt8(bitPattern: $0) }
        core.log(String(decoding: bytes, as: UTF8.self))
    }
}

/// What the server keeps per connection. Only the connection's own thread touches it
/// after creation (libmicrohttpd serves a connection on one thread).
final class ConnectionInfo: @unchecked Sendable {
    /// The client's address, formatted once.
    let address: String
    /// The connection's socket, open until the connection's close notification.
    let socket: Int32
    /// Whether a request is in progress, for a shutdown to close idle connections.
    let activity = ConnectionActivity()
    /// The current request target's length up to its first NUL, from the URI log callback.
    var targetLength = 0
    /// The connection's quick request, reused by each unparsed GET answered at once. A `let`,
    /// so that a request reaches it without retaining it.
    let quickRequest: QuickRequest
    /// What the header timeout's last pass saw of the connection (``HeaderTimeout``); only
    /// that pass touches it, under the server's lock of open connections.
    var headerMark = HeaderTimeout.Mark()

    init(address: String, socket: Int32) {
        self.address = address
        self.socket = socket
        quickRequest = QuickRequest(clientAddress: address, activity: activity)
    }
}

/// Whether a connection has a request in progress: set at a request's first access-handler
/// call, cleared at its completion (both on the connection's thread), read by a shutdown on
/// another thread.
final class ConnectionActivity: Sendable {
    private let inProgress = Atomic<Bool>(false)
    /// Requests begun on the connection (wrapping): the header timeout tells by it that a
    /// head was completed between two of its passes.
    private let begun = Atomic<UInt>(0)

    func begin() {
        begun.wrappingAdd(1, ordering: .relaxed)
        inProgress.store(true, ordering: .relaxed)
    }

    func end() { inProgress.store(false, ordering: .relaxed) }
    var isIdle: Bool { !inProgress.load(ordering: .relaxed) }
    var requestsBegun: UInt { begun.load(ordering: .relaxed) }
}
