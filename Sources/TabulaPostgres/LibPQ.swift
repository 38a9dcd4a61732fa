internal import CLibPQ
import TabulaPlatform

/// libpq's functions, loaded with `dlopen` when the first connection is made. A process on
/// the memory or SQLite store never maps libpq, nor the TLS, Kerberos and LDAP libraries it
/// pulls in (resident memory at idle, which `Scripts/bench` prints).
struct LibPQ: @unchecked Sendable {
    typealias Connection = OpaquePointer
    typealias Result = OpaquePointer
    typealias Text = UnsafeMutablePointer<CChar>
    typealias ConnectDB = @convention(c) (UnsafePointer<CChar>?) -> Connection?
    typealias OnConnection = @convention(c) (Connection?) -> Void
    typealias Status = @convention(c) (Connection?) -> ConnStatusType
    typealias Socket = @convention(c) (Connection?) -> Int32
    typealias ConnectionText = @convention(c) (Connection?) -> Text?
    typealias SendParams =
        @convention(c) (
            Connection?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?,
            UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
        ) -> Int32
    typealias ConnectionNumber = @convention(c) (Connection?) -> Int32
    typealias NextResult = @convention(c) (Connection?) -> Result?
    typealias OnResult = @convention(c) (Result?) -> Void
    typealias ResultStatus = @convention(c) (Result?) -> ExecStatusType
    typealias ResultText = @convention(c) (Result?) -> Text?
    typealias ResultField = @convention(c) (Result?, Int32) -> Text?
    typealias ResultCount = @convention(c) (Result?) -> Int32
    typealias CellNumber = @convention(c) (Result?, Int32, Int32) -> Int32
    typealias CellText = @convention(c) (Result?, Int32, Int32) -> Text?
    typealias ColumnType = @convention(c) (Result?, Int32) -> Oid
    typealias Notifies = @convention(c) (Connection?) -> UnsafeMutablePointer<PGnotify>?
    typealias FreeMemory = @convention(c) (UnsafeMutableRawPointer?) -> Void

    let connectdb: ConnectDB
    let finish: OnConnection
    let status: Status
    let socket: Socket
    let errorMessage: ConnectionText
    let sendQueryParams: SendParams
    let consumeInput: ConnectionNumber
    let isBusy: ConnectionNumber
    let getResult: NextResult
    let clear: OnResult
    let resultStatus: ResultStatus
    let cmdTuples: ResultText
    let resultErrorField: ResultField
    let resultErrorMessage: ResultText
    let ntuples: ResultCount
    let nfields: ResultCount
    let getisnull: CellNumber
    let getvalue: CellText
    let getlength: CellNumber
    let ftype: ColumnType
    let notifies: Notifies
    let freemem: FreeMemory

    /// The library, loaded on first use; the error says what to install when it is missing.
    private static let shared: Swift.Result<LibPQ, PostgresError> = load()

    static func get() throws(PostgresError) -> LibPQ {
        try shared.get()
    }

    private static func load() -> Swift.Result<LibPQ, PostgresError> {
        let name = "libpq.so.5"
        guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(PostgresError(message: "cannot load \(name) (\(reason)); install the libpq5 package to use --store postgres"))
        }
        var missing: [String] = []
        func symbol<Function>(_ name: String, _ type: Function.Type) -> Function? {
            guard let address = dlsym(library, name) else {
                missing.append(name)
                return nil
            }
            return unsafeBitCast(address, to: type)
        }
        let connectdb = symbol("PQconnectdb", ConnectDB.self)
        let finish = symbol("PQfinish", OnConnection.self)
        let status = symbol("PQstatus", Status.self)
        let socket = symbol("PQsocket", Socket.self)
        let errorMessage = symbol("PQerrorMessage", ConnectionText.self)
        let sendQueryParams = symbol("PQsendQueryParams", SendParams.self)
        let consumeInput = symbol("PQconsumeInput", ConnectionNumber.self)
        let isBusy = symbol("PQisBusy", ConnectionNumber.self)
        let getResult = symbol("PQgetResult", NextResult.self)
        let clear = symbol("PQclear", OnResult.self)
        let resultStatus = symbol("PQresultStatus", ResultStatus.self)
        let cmdTuples = symbol("PQcmdTuples", ResultText.self)
        let resultErrorField = symbol("PQresultErrorField", ResultField.self)
        let resultErrorMessage = symbol("PQresultErrorMessage", ResultText.self)
        let ntuples = symbol("PQntuples", ResultCount.self)
        let nfields = symbol("PQnfields", ResultCount.self)
        let getisnull = symbol("PQgetisnull", CellNumber.self)
        let getvalue = symbol("PQgetvalue", CellText.self)
        let getlength = symbol("PQgetlength", CellNumber.self)
        let ftype = symbol("PQftype", ColumnType.self)
        let notifies = symbol("PQnotifies", Notifies.self)
        let freemem = symbol("PQfreemem", FreeMemory.self)
        guard let connectdb, let finish, let status, let socket, let errorMessage, let sendQueryParams,
            let consumeInput, let isBusy, let getResult, let clear,
            let resultStatus, let cmdTuples, let resultErrorField, let resultErrorMessage, let ntuples, let nfields,
            let getisnull, let getvalue, let getlength, let ftype, let notifies, let freemem
        else {
            return .failure(PostgresError(message: "\(name) lacks \(missing.joined(separator: ", ")); install a current libpq5"))
        }
        return .success(
            LibPQ(
                connectdb: connectdb, finish: finish, status: status, socket: socket, errorMessage: errorMessage,
                sendQueryParams: sendQueryParams, consumeInput: consumeInput, isBusy: isBusy,
                getResult: getResult, clear: clear, resultStatus: resultStatus, cmdTuples: cmdTuples,
                resultErrorField: resultErrorField, resultErrorMessage: resultErrorMessage, ntuples: ntuples, nfields: nfields,
                getisnull: getisnull, getvalue: getvalue, getlength: getlength, ftype: ftype, notifies: notifies, freemem: freemem))
    }
}
