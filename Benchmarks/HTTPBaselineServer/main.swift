// A minimal server on TabulaHTTP for the HTTP-layer baseline: GET /fixed answers 3,400
// bytes from a PreparedResponse (no copy per request); GET /dynamic builds the same bytes
// into a new response per request. Prints its port, stops on SIGTERM or SIGINT.
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Logging
import TabulaHTTP

struct BaselineHandler: HTTPHandler {
    let body = Array(repeating: UInt8(ascii: "x"), count: 3400)
    let prepared: PreparedResponse?

    init() {
        prepared = PreparedResponse(status: .ok, headerFields: [.contentType: "application/json"], body: body)
    }

    func handle(_ request: Request, responder: Responder) {
        switch request.rawPath {
        case "/fixed":
            if let prepared { responder.send(Response(prepared)) }
        case "/dynamic":
            responder.send(Response(status: .ok, headerFields: [.contentType: "application/json"], body: body))
        default:
            responder.send(Response(status: .notFound))
        }
    }

    func refusal(_ reason: RejectionReason) -> Response {
        Response(status: reason.status)
    }
}

struct SilentObserver: HTTPServerObserver {
    func requestCompleted(_ summary: RequestSummary) {}
    func requestRejected(_ reason: RejectionReason) {}
}

var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGTERM)
sigaddset(&signals, SIGINT)
pthread_sigmask(SIG_BLOCK, &signals, nil)

var configuration = ServerConfiguration()
configuration.port = CommandLine.arguments.count > 1 ? UInt16(CommandLine.arguments[1]) ?? 0 : 0
let server = HTTPServer(configuration: configuration, handler: BaselineHandler(), observer: SilentObserver(), logger: Logger(label: "baseline"))
do {
    try server.start()
} catch {
    print("error: \(error)")
    exit(1)
}
print("listening on http://127.0.0.1:\(server.port)")
fflush(nil)
var received: Int32 = 0
sigwait(&signals, &received)
server.shutdown()
