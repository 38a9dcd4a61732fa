internal import CLibPQ
import TabulaPlatform

/// Why PostgreSQL refused, with its SQLSTATE when the server sent one.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The five-character SQLSTATE, such as "23505" for a unique violation.
    public var sqlState: String?
    /// Whether the message is Tabula's own words (a deadline that passed, a row that did not
    /// decode), which name nothing of the server; libpq's and the server's can name its host,
    /// port, user, files and tables.
    public var isOwnMessage: Bool

    public init(message: String, sqlState: String? = nil, isOwnMessage: Bool = false) {
        self.message = message
        self.sqlState = sqlState
        self.isOwnMessage = isOwnMessage
    }

    public var description: String { sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message }

    /// A unique or serialization conflict: the transaction should be retried.
    public var isConflict: Bool { ["23505", "40001", "40P01"].contains(sqlState ?? "") }

    /// Damaged data: the server's data_corrupted or index_corrupted, or a row the caller
    /// found not to be what it wrote (``corrupt(_:)``).
    public var isCorruption: Bool { ["XX001", "XX002"].contains(sqlState ?? "") }

    /// A row that does not read back as what was written: reported as PostgreSQL reports
    /// damaged data (SQLSTATE XX001, data_corrupted).
    public static func corrupt(_ message: String) -> PostgresError {
        PostgresError(message: message, sqlState: "XX001", isOwnMessage: true)
    }
}

/// A parameter or result value. Parameters and results travel in binary format.
public enum PostgresValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case bytes([UInt8])

    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var bytes: [UInt8]? {
        switch self {
        case .bytes(let value): value
        case .text(let value): Array(value.utf8)
        default: nil
        }
    }
}

/// A `NOTIFY` received on a channel the connection listens to.
public struct PostgresNotification: Sendable, Equatable {
    public var channel: String
    public var payload: String
}

/// The rows a statement returned and how many rows it changed.
public struct PostgresResult: Sendable {
    public var rows: [[PostgresValue]]
    public var affectedRows: Int
}

/// One libpq connection, used by one thread at a time. Every call has a bound: the
/// connection URL gets a connect timeout and TCP keepalives, the session a statement
/// timeout, and each statement a deadline of its own (the statement timeout plus two
/// seconds) after which the connection is closed: a server that stops answering while its
/// host still acknowledges the traffic (a frozen process, a stalled disk) trips neither the
/// keepalives nor its own timeout, so calls fail instead of hang.
public final class PostgresConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    private let url: String
    private let pq: LibPQ
    /// How long a statement may take from sending to its last result.
    private let deadline: Duration

    /// Connects; `statementTimeoutMilliseconds` bounds every statement on the server, and
    /// `nil` bounds none (the schema's migrations, which rewrite whole tables and wait for
    /// another instance's: they take as long as the data asks; the keepalives still notice a
    /// host that is gone).
    public init(url: String, statementTimeoutMilliseconds: Int? = 5000) throws(PostgresError) {
        pq = try LibPQ.get()
        self.url = Self.withTimeouts(url)
        deadline = statementTimeoutMilliseconds.map { .milliseconds($0 + 2000) } ?? .seconds(365 * 86_400)
        try connect(statementTimeoutMilliseconds: statementTimeoutMilliseconds ?? 0)
    }

    deinit {
        if let handle { pq.finish(handle) }
    }

    /// Adds connect and TCP timeouts unless the URL sets them itself.
    static func withTimeouts(_ url: String) -> String {
        let defaults = [
            "connect_timeout=3", "keepalives=1", "keepalives_idle=5", "keepalives_interval=2", "keepalives_count=2",
            "tcp_user_timeout=5000",
        ].filter { !url.contains($0.prefix { $0 != "=" } + "=") }
        guard !defaults.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + defaults.joined(separator: "&")
    }

    /// `statementTimeoutMilliseconds` 0: none, as PostgreSQL reads it.
    private func connect(statementTimeoutMilliseconds: Int) throws(PostgresError) {
        if let handle { pq.finish(handle) }
        handle = pq.connectdb(url)
        guard let handle, pq.status(handle) == CONNECTION_OK else {
            let message = handle.flatMap { pq.errorMessage($0) }.map { String(cString: $0) } ?? "out of memory"
            throw PostgresError(message: "cannot connect: \(message.trimmingNewlines())")
        }
        _ = try execute("SET statement_timeout = \(statementTimeoutMilliseconds)")
        _ = try execute("SET idle_in_transaction_session_timeout = \(statementTimeoutMilliseconds * 2)")
    }

    /// Whether the connection is open and the server has sent nothing since the last answer.
    /// Between statements the server has nothing to say: a readable socket means it closed
    /// the connection (a restart, a failover, an administrator) or sent its reason for doing
    /// so. Checked without waiting, so that a restarted database costs no failed request.
    public var isIdleAndQuiet: Bool {
        guard let handle, pq.status(handle) == CONNECTION_OK else { return false }
        let descriptor = pq.socket(handle)
        guard descriptor >= 0 else { return false }
        var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&watch, 1, 0) == 0
    }

    /// Runs one statement with `$1…` parameters, in binary format both ways.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        guard let handle else { throw PostgresError(message: "not connected") }
        var types: [UInt32] = []
        var formats: [Int32] = []
        var lengths: [Int32] = []
        var buffers: [[UInt8]?] = []
        for parameter in parameters {
            formats.append(1)
            switch parameter {
            case .null:
                types.append(0)
                buffers.append(nil)
            case .integer(let value):
                types.append(20)  // int8
                buffers.append(withUnsafeBytes(of: value.bigEndian) { Array($0) })
            case .text(let value):
                types.append(25)  // text
                buffers.append(Array(value.utf8))
            case .bytes(let value):
                types.append(17)  // bytea
                buffers.append(value)
            }
            lengths.append(Int32(buffers.last??.count ?? 0))
        }
        let sent = Self.withPointers(buffers) { pointers in
            pq.sendQueryParams(handle, sql, Int32(parameters.count), types, pointers, lengths, formats, 1)
        }
        guard sent == 1 else { throw PostgresError(message: connectionMessage(handle)) }
        let result = try lastResult(handle)
        defer { pq.clear(result) }
        switch pq.resultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            let affected = pq.cmdTuples(result).map { String(cString: $0) } ?? ""
            return PostgresResult(rows: rows(result), affectedRows: Int(affected) ?? 0)
        default:
            let sqlState = pq.resultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = (pq.resultErrorMessage(result).map { String(cString: $0) } ?? "").trimmingNewlines()
            throw PostgresError(message: message.isEmpty ? connectionMessage(handle) : message, sqlState: sqlState)
        }
    }

    /// Waits for the statement's results, at most until its deadline, and returns the last
    /// one (as `PQexec` does). Past the deadline the connection is closed.
    private func lastResult(_ handle: OpaquePointer) throws(PostgresError) -> OpaquePointer {
        let end = ContinuousClock.now + deadline
        var last: OpaquePointer?
        while true {
            switch awaitResult(handle, until: end) {
            case .ready:
                break
            case .broken:
                // An error result already in keeps its SQLSTATE; anything else is lost.
                if let last, pq.resultStatus(last) == PGRES_FATAL_ERROR { return last }
                if let last { pq.clear(last) }
                throw PostgresError(message: connectionMessage(handle))
            case .timedOut:
                if let last { pq.clear(last) }
                pq.finish(handle)
                self.handle = nil
                throw PostgresError(message: "PostgreSQL did not answer within \(deadline); the connection was closed", isOwnMessage: true)
            }
            guard let result = pq.getResult(handle) else { break }
            if let last { pq.clear(last) }
            last = result
            // As PQexec: a COPY or a broken connection ends the statement's results.
            let status = pq.resultStatus(result)
            if status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH || pq.status(handle) == CONNECTION_BAD { break }
        }
        guard let last else { throw PostgresError(message: connectionMessage(handle)) }
        return last
    }

    private enum Readiness { case ready, broken, timedOut }

    /// Reads input until the next result is complete (`PQgetResult` will not block), the
    /// connection breaks, or `end` passes.
    private func awaitResult(_ handle: OpaquePointer, until end: ContinuousClock.Instant) -> Readiness {
        while true {
            // Input is read before every wait, and the waits are short: with TLS, bytes
            // already decrypted into the library's buffer no longer show on the socket.
            guard pq.consumeInput(handle) == 1 else { return .broken }
            if pq.isBusy(handle) == 0 { return .ready }
            if !waitForInput(handle, until: min(end, ContinuousClock.now + .milliseconds(50))) && ContinuousClock.now >= end {
                return .timedOut
            }
        }
    }

    /// Whether the connection's socket became readable before `end`.
    private func waitForInput(_ handle: OpaquePointer, until end: ContinuousClock.Instant) -> Bool {
        let descriptor = pq.socket(handle)
        guard descriptor >= 0 else { return false }
        while true {
            let remaining = end - ContinuousClock.now
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watch, 1, milliseconds)
            if ready > 0 { return true }
            if ready == 0 { return false }
            if errno != EINTR { return false }
        }
    }

    /// The notifications (`NOTIFY`) of the channels this connection listens to that arrived
    /// by `timeout` seconds from now: at once when some are in, else after the first comes
    /// or the time is up (then none). Throws when the connection is broken.
    public func notifications(waitingUpTo timeout: Double) throws(PostgresError) -> [PostgresNotification] {
        guard let handle else { throw PostgresError(message: "not connected") }
        var received = takeNotifications(handle)
        guard received.isEmpty else { return received }
        _ = waitForInput(handle, until: ContinuousClock.now + .milliseconds(Int(timeout * 1000)))
        guard pq.consumeInput(handle) == 1, pq.status(handle) == CONNECTION_OK else {
            throw PostgresError(message: connectionMessage(handle))
        }
        received = takeNotifications(handle)
        return received
    }

    private func takeNotifications(_ handle: OpaquePointer) -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while let notification = pq.notifies(handle) {
            let channel = notification.pointee.relname.map { String(cString: $0) } ?? ""
            let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
            received.append(PostgresNotification(channel: channel, payload: payload))
            pq.freemem(UnsafeMutableRawPointer(notification))
        }
        return received
    }

    private func connectionMessage(_ handle: OpaquePointer) -> String {
        (pq.errorMessage(handle).map { String(cString: $0) } ?? "").trimmingNewlines()
    }

    private static func withPointers<Result>(_ buffers: [[UInt8]?], _ body: ([UnsafePointer<CChar>?]) -> Result) -> Result {
        var pointers: [UnsafePointer<CChar>?] = []
        var allocations: [UnsafeMutablePointer<CChar>] = []
        defer { allocations.forEach { $0.deallocate() } }
        for buffer in buffers {
            guard let buffer else {
                pointers.append(nil)
                continue
            }
            let memory = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, buffer.count))
            buffer.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { UnsafeMutableRawPointer(memory).copyMemory(from: base, byteCount: buffer.count) }
            }
            allocations.append(memory)
            pointers.append(UnsafePointer(memory))
        }
        return body(pointers)
    }

    private func rows(_ result: OpaquePointer) -> [[PostgresValue]] {
        let rowCount = pq.ntuples(result)
        let columnCount = pq.nfields(result)
        guard rowCount > 0 else { return [] }
        return (0..<rowCount).map { row in
            (0..<columnCount).map { column in value(result, row, column) }
        }
    }

    private func value(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> PostgresValue {
        guard pq.getisnull(result, row, column) == 0, let pointer = pq.getvalue(result, row, column) else { return .null }
        let length = Int(pq.getlength(result, row, column))
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        switch pq.ftype(result, column) {
        case 20 where length == 8:  // int8
            return .integer(bytes.reduce(0) { $0 << 8 | Int64($1) })
        case 23 where length == 4:  // int4
            return .integer(Int64(Int32(bitPattern: bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })))
        case 21 where length == 2:  // int2
            return .integer(Int64(Int16(bitPattern: bytes.reduce(UInt16(0)) { $0 << 8 | UInt16($1) })))
        case 16 where length == 1:  // bool
            return .integer(Int64(bytes[0]))
        case 17:  // bytea
            return .bytes(Array(bytes))
        default:
            return .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}

extension String {
    func trimmingNewlines() -> String {
        var text = self
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }
}
