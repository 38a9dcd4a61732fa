import HTTPTypes
import Logging
import TabulaHTTP
// A minimal server on TabulaHTTP for the HTTP-layer baseline: GET /fixed answers 3,400
// bytes from a PreparedResponse (no copy per request); GET /dynamic builds the same bytes
// into a new response per request. Given a body file, it also answers every unparsed GET from
// the quick path with that file's bytes and the ceiling's headers, with no lookup, log line
// or metrics: what TabulaHTTP itself costs a cached GET (Scripts/bench's "floor"). Given a
// second file, it answers every POST, once its body is read, with that file's bytes in a
// response built per request, as an event's answer is: what TabulaHTTP's full request path
// costs with no event behind it (Scripts/bench's "POST floor").
// Prints its port, stops on SIGTERM or SIGINT.
//
// usage: tabula-http-baseline [PORT] [BODY_FILE] [POST_BODY_FILE]
import TabulaPlatform
import TabulaSamples

struct BaselineHandler: HTTPHandler {
    let body = Array(repeating: UInt8(ascii: "x"), count: 3400)
    let prepared: PreparedResponse?
    /// The body file's bytes with the ceiling's headers, for every unparsed GET.
    let plainAnswer: QuickAnswer?
    /// The POST body file's bytes, answered to every POST with an event answer's headers.
    let postBody: [UInt8]?
    let postHeaders: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]

    init(plainBody: [UInt8]?, postBody: [UInt8]?) {
        self.postBody = postBody
        prepared = PreparedResponse(status: .ok, headerFields: [.contentType: "application/json"], body: body)
        plainAnswer = plainBody.flatMap { bytes in
            // The ceiling's headers, in its order.
            let fields: HTTPFields = [
                .contentType: "application/json", .eTag: "\"0123456789abcdef\"", .cacheControl: "no-cache", .vary: "X-Session",
            ]
            return PreparedResponse(status: .ok, headerFields: fields, body: bytes).map { QuickAnswer(response: $0, route: "*", logContext: nil) }
        }
    }

    var answersUnparsedGets: Bool { plainAnswer != nil }

    func quickAnswer(_ request: UnparsedGet) -> QuickAnswer? {
        plainAnswer
    }

    func handle(_ request: Request, responder: Responder) {
        if request.method == .post, let postBody {
            return responder.send(Response(status: .ok, headerFields: postHeaders, body: postBody))
        }
        switch request.rawPath {
        case "/fixed":
            if let prepared { responder.send(Response(prepared)) }
        case "/dynamic":
            responder.send(Response(status: .ok, headerFields: [.contentType: "application/json"], body: body))
        default:
            responder.send(Response(status: .notFound))
        }
    }

    func refusal(_ reason: RejectionReason, under configuration: ServerConfiguration) -> Response {
        Response(status: reason.status)
    }
}

var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGTERM)
sigaddset(&signals, SIGINT)
pthread_sigmask(SIG_BLOCK, &signals, nil)

let arguments = CommandLine.arguments
/// The file named by the argument at `index`, if given; exits when it cannot be read.
func fileArgument(_ index: Int) -> [UInt8]? {
    guard arguments.count > index else { return nil }
    guard let bytes = FixtureFiles.read(arguments[index]) else {
        print("error: cannot read \(arguments[index])")
        exit(1)
    }
    return bytes
}
let plainBody = fileArgument(2)
let postBody = fileArgument(3)
var configuration = ServerConfiguration()
configuration.port = arguments.count > 1 ? UInt16(arguments[1]) ?? 0 : 0
let server = HTTPServer(
    configuration: configuration, handler: BaselineHandler(plainBody: plainBody, postBody: postBody), observer: SilentObserver(),
    logger: Logger(label: "baseline"))
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
