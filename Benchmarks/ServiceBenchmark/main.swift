import HTTPTypes
import Logging
import TabulaCore
import TabulaHTTP
// Per-request costs of the service shell, measured without HTTP: the request log line,
// metrics, routing, a GET of a cached screen and a switch event (over 256 sessions) through
// the handler. Prints ns per call.
import TabulaPlatform
import TabulaSamples
import TabulaService

/// Figures go to standard error: standard output carries the log lines being measured.
func report(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func nanosecondsPerCall(_ count: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    for _ in 0..<count / 10 { body() }
    // The fastest of five rounds: the least disturbed by other work on the machine.
    let rounds = (0..<5).map { _ in
        let elapsed = clock.measure { for _ in 0..<count / 5 { body() } }
        return (Double(elapsed.components.seconds) * 1e18 + Double(elapsed.components.attoseconds)) / 1e9 / Double(count / 5)
    }
    return rounds.min() ?? 0
}

guard let catalogue = try? FixtureFiles.catalogue(directory: "Fixtures/screens") else {
    report("run from the repository root")
    exit(1)
}
let level = CommandLine.arguments.dropFirst().first.flatMap { Logger.Level(rawValue: $0) } ?? .info
LoggingSystem.bootstrap { label in TabulaLogHandler(label: label, level: level) }
let logger = Logger(label: "tabula")
let store = MemorySessionStore()
var configuration = ServiceConfiguration()
configuration.accessLog = .buffered(.shared, label: logger.label)
let service = try TabulaService(configuration: configuration, catalogue: catalogue, store: store, logger: logger)
store.createSession(NewSession(token: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", id: SessionID.make(), subject: nil, state: catalogue.initialState)) { _ in }
let delivered = Locked(0)
let responder = Responder { response in delivered.withLock { $0 &+= response.status.code } }
let headers = RequestHeaders([("Host", "127.0.0.1:8080"), ("X-Session", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")])
let request = Request(method: .get, rawPath: "/v1/screens/settings", headers: headers, remoteAddress: "127.0.0.1")
let summary = RequestSummary(
    method: "GET", path: "/v1/screens/settings", status: 200, route: "/v1/screens/{id}", duration: .microseconds(123),
    remoteAddress: "127.0.0.1", logContext: "AAAAAAAA")
let observer = service.observer
report("per call, \(level) logging to standard output:")
report("  GET /v1/screens/settings through the handler: \(Int(nanosecondsPerCall(200_000) { service.handle(request, responder: responder) })) ns")
report("  request completed (metrics + log line):      \(Int(nanosecondsPerCall(200_000) { observer.requestCompleted(summary) })) ns")
report("  path segments:                               \(Int(nanosecondsPerCall(200_000) { _ = request.pathSegments() })) ns")
let state = catalogue.initialState
report(
    "  store: current state of a session:           \(Int(nanosecondsPerCall(200_000) { _ = store.currentStateIfCached(session: SessionKey("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")) })) ns"
)
report("  header lookup (X-Session):                   \(Int(nanosecondsPerCall(200_000) { _ = request.headers.values("X-Session") })) ns")
func measureRouter() -> Double {
    var router = Router()
    for (index, pattern) in [
        "/healthz", "/metrics", "/v1/screens", "/v1/sessions", "/v1/screens/{id}", "/v1/screens/{id}/changes",
        "/v1/screens/{id}/selection", "/v1/screens/{id}/switch", "/v1/screens/{id}/deletion", "/openapi.json",
    ].enumerated() {
        let post = pattern == "/v1/sessions" || pattern.hasSuffix("selection") || pattern.hasSuffix("switch") || pattern.hasSuffix("deletion")
        _ = index
        router.add(post ? .post : .get, pattern)
    }
    var total = 0
    let result = nanosecondsPerCall(200_000) { if case .matched(let value, _, _) = router.match(.get, path: "/v1/screens/settings") { total &+= value } }
    if total == -1 { print(total) }
    return result
}
report("  router match:                                \(Int(measureRouter())) ns")
report("  catalogue lookup:                            \(Int(nanosecondsPerCall(200_000) { _ = catalogue.screen(id: "settings") })) ns")
_ = state
/// Switch events through the handler, cycling over 256 sessions as the wrk script does, each
/// event flipping Bluetooth so that every one changes state.
func measureSwitchEvents() -> Double {
    let tokens = (0..<256).map { index in "EVENTS" + String(repeating: "A", count: 23) + String(1000 + index, radix: 10).suffix(3) }
    for token in tokens { store.createSession(NewSession(token: token, id: SessionID.make(), subject: nil, state: catalogue.initialState)) { _ in } }
    let requests = tokens.map { token in
        ["true", "false"].map { value in
            Request(
                method: .post, rawPath: "/v1/screens/settings/switch",
                headers: RequestHeaders([("Host", "127.0.0.1:8080"), ("X-Session", token), ("Content-Type", "application/json")]),
                body: Array(#"{"row":"bluetooth","isOn":\#(value)}"#.utf8), remoteAddress: "127.0.0.1")
        }
    }
    var next = 0
    return nanosecondsPerCall(200_000) {
        let session = next % tokens.count
        service.handle(requests[session][(next / tokens.count) % 2], responder: responder)
        next &+= 1
    }
}
report("  POST switch event through the handler:       \(Int(measureSwitchEvents())) ns")
BufferedStandardOutput.shared.flush()
