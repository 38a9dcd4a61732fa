// A minimal server on TabulaHTTP for the HTTP-layer baseline: GET /fixed answers 3,400
// bytes from a PreparedResponse (no copy per request); GET /dynamic builds the same bytes
// into a new response per request. Given a body file, it also answers every plain GET from
// the quick path with that file's bytes and the ceiling's headers, with no lookup, log line
// or metrics: what TabulaHTTP itself costs a cached GET (Scripts/bench's "floor").
// Prints its port, stops on SIGTERM or SIGINT.
//
// usage: tabula-http-baseline [PORT] [BODY_FILE]
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Logging
import TabulaHTTP
import TabulaSamples

struct BaselineHandler: HTTPHandler {
    let body = Array(repeating: UInt8(ascii: "x"), count: 3400)
    let prepared: PreparedResponse?
    /// The body file's bytes with the ceiling's headers, for every plain GET.
    let plainAnswer: QuickAnswer?

    init(plainBody: [UInt8]?) {
        prepared = PreparedResponse(status: .ok, headerFields: [.contentType: "application/json"], body: body)
        plainAnswer = plainBody.flatMap { bytes in
            // The ceiling's headers, in its order.
            let fields: HTTPFields = [
                .contentType: "application/json", .eTag: "\"0123456789abcdef\"", .cacheControl: "no-cache", .vary: "X-Session",
            ]
            return PreparedResponse(status: .ok, headerFields: fields, body: bytes).map { QuickAnswer(response: $0, route: "*", logContext: nil) }
        }
    }

    var answersPlainGets: Bool { plainAnswer != nil }

    func quickAnswer(_ request: PlainGet) -> QuickAnswer? {
        plainAnswer
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

let arguments = CommandLine.arguments
var plainBody: [UInt8]?
if arguments.count > 2 {
    guard let bytes = FixtureFiles.read(arguments[2]) else {
        print("error: cannot read \(arguments[2])")
        exit(1)
    }
    plainBody = bytes
}
var configuration = ServerConfiguration()
configuration.port = arguments.count > 1 ? UInt16(arguments[1]) ?? 0 : 0
let server = HTTPServer(
    configuration: configuration, handler: BaselineHandler(plainBody: plainBody), observer: SilentObserver(), logger: Logger(label: "baseline"))
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
