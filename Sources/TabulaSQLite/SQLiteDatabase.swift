internal import CSQLite

/// Why SQLite refused: its result code and message.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    public var message: String
    /// Whether the message is Tabula's own words (what did not decode, in which session),
    /// not SQLite's, which can name the file and the statement.
    public var isOwnMessage: Bool

    public init(code: Int32, message: String, isOwnMessage: Bool = false) {
        self.code = code
        self.message = message
        self.isOwnMessage = isOwnMessage
    }

    public var description: String { "SQLite error \(code): \(message)" }

    /// The database or disk is full, or the disk failed: nothing the client can fix.
    public var isIOError: Bool { [SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_CORRUPT, SQLITE_NOTADB].contains(code & 0xFF) }

    /// The file is damaged, or is not a database: SQLite's SQLITE_CORRUPT or SQLITE_NOTADB,
    /// or a row the caller found not to be what it wrote (``corrupt(_:)``).
    public var isCorruption: Bool { [SQLITE_CORRUPT, SQLITE_NOTADB].contains(code & 0xFF) }

    /// A row that does not read back as what was written: reported as SQLite reports a
    /// damaged page.
    public static func corrupt(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, message: message, isOwnMessage: true)
    }

    /// A read that other connections' writes kept from finishing: reported as SQLite
    /// reports a busy database, which passes.
    public static func busy(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_BUSY, message: message, isOwnMessage: true)
    }
}

/// A value bound to or read from a statement.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// One SQLite connection. It is not thread-safe: its owner uses it from one thread at a
/// time (Tabula's writer thread, or callers holding a lock).
public final class SQLiteDatabase: @unchecked Sendable {
    let handle: OpaquePointer

    /// Opens (creating if needed) the database file at `path`.
    public init(path: String) throws(SQLiteError) {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(connection)
            throw SQLiteError(code: result, message: "cannot open \(path): \(message)")
        }
        handle = connection
        sqlite3_extended_result_codes(connection, 1)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Whether a transaction is open. SQLite may roll back a whole transaction by itself
    /// (an I/O error, a full disk, memory running out), ending its savepoints with it: a
    /// caller that goes on after a failed statement asks this first.
    public var isInTransaction: Bool {
        sqlite3_get_autocommit(handle) == 0
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(message)
            throw SQLiteError(code: result, message: text)
        }
    }

    /// Compiles a statement to run many times.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw SQLiteError(code: result, message: "\(lastErrorMessage) in: \(sql)")
        }
        return SQLiteStatement(handle: statement, database: self)
    }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: lastErrorMessage)
    }
}

/// A compiled statement. Bind parameters (1-based), step through rows, reset to reuse.
public final class SQLiteStatement: @unchecked Sendable {
    let handle: OpaquePointer
    let database: SQLiteDatabase

    init(handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds values to the parameters, in order, after resetting the statement.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null:
                result = sqlite3_bind_null(handle, index)
            case .integer(let number):
                result = sqlite3_bind_int64(handle, index, number)
            case .text(var text):
                // The length is passed, so no terminated copy is needed (`utf8CString` made one
                // per value); SQLite copies the bytes itself.
                result = text.withUTF8 { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { characters in
                        // A null pointer would bind NULL, not the empty string.
                        guard let start = characters.baseAddress else { return tabula_sqlite_bind_text(handle, index, "", 0) }
                        return tabula_sqlite_bind_text(handle, index, start, Int32(characters.count))
                    }
                }
            case .blob(let bytes):
                result = bytes.withUnsafeBytes { buffer in
                    tabula_sqlite_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count))
                }
            }
            guard result == SQLITE_OK else { throw database.error(result) }
        }
    }

    /// Advances to the next row; `false` when done.
    public func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(result)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds, runs to completion and resets: for statements without rows.
    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Binds and returns every row's columns.
    public func rows(_ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        try bind(values)
        defer { sqlite3_reset(handle) }
        var rows: [[SQLiteValue]] = []
        while try step() {
            rows.append((0..<sqlite3_column_count(handle)).map(column))
        }
        return rows
    }

    private func column(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }
}

extension SQLiteValue {
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var blob: [UInt8]? {
        switch self {
        case .blob(let bytes): return bytes
        case .text(let text): return Array(text.utf8)
        default: return nil
        }
    }
}
