import HTTPTypes
import TabulaCore
public import TabulaHTTP
import TabulaPlatform
import TabulaService

/// A small app backend for the bundled `sign-in` screen, which its button asks with
/// `{"call": "sign-in"}`: what an app's own backend does, in a page of code. It checks each
/// call's `Tabula-Signature` (401 without a valid one), then answers `POST /sign-in`:
///
/// - an e-mail address it has no account for: `{"errors": {"email": …}}`;
/// - a wrong password: `{"errors": {"password": "Wrong password …"}}`;
/// - the right one: `{"state": {"signedIn": true}, "effects": [{"type": "navigate",
///   "screen": "settings"}]}`.
///
/// Its one account is `ann@example.com` with the password `correct horse`. It answers the
/// same to the same `Idempotency-Key`, as a backend must: it keeps nothing, so it does.
/// `tabula example-backend` serves it.
public struct ExampleBackend: HTTPHandler {
    public static let accounts = ["ann@example.com": "correct horse"]

    private let secret: String
    /// Unix seconds now; a test may fix it.
    private let now: @Sendable () -> Int

    public init(secret: String, now: @escaping @Sendable () -> Int = { Int(SystemClock.coarseWallNanoseconds() / 1_000_000_000) }) {
        self.secret = secret
        self.now = now
    }

    public func handle(_ request: Request, responder: Responder) {
        responder.send(answer(request))
    }

    /// The answer to one request, whichever thread asks.
    public func answer(_ request: Request) -> Response {
        guard request.method == .post else { return Self.json(.methodNotAllowed, #"{"error": "only POST"}"#) }
        guard let signature = request.headers.value(ActionSignature.headerName),
            ActionSignature.verify(signature, secret: secret, body: request.body, now: now())
        else {
            return Self.json(.unauthorized, #"{"error": "the Tabula-Signature header is missing, old, or not made with this secret"}"#)
        }
        guard request.rawPath == "/sign-in" else { return Self.json(.notFound, #"{"error": "this backend knows the action sign-in only"}"#) }
        // The signature covers the body, not the URL: the action it names must be this one.
        guard let call = try? JSONParser().parse(request.body), call.objectValue?["action"] == "sign-in",
            let values = call.objectValue?["values"]?.objectValue
        else {
            return Self.json(.badRequest, #"{"error": "not a call of Tabula's for sign-in"}"#)
        }
        let email = values["email"]?.stringValue ?? ""
        let password = values["password"]?.stringValue ?? ""
        guard let expected = Self.accounts[email.lowercased()] else {
            return Self.json(.ok, #"{"errors": {"email": "There is no account for this e-mail address"}}"#)
        }
        guard Self.equalInConstantTime(Array(password.utf8), Array(expected.utf8)) else {
            return Self.json(.ok, #"{"errors": {"password": "Wrong password"}}"#)
        }
        return Self.json(.ok, #"{"effects": [{"type": "navigate", "screen": "settings"}], "state": {"signedIn": true}}"#)
    }

    public func refusal(_ reason: RejectionReason, under configuration: ServerConfiguration) -> Response {
        Self.json(reason.status, #"{"error": "\#(reason.rawValue)"}"#)
    }

    /// A comparison whose time says nothing of where the bytes differ.
    private static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    private static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headerFields: [.contentType: "application/json"], body: Array(text.utf8))
    }
}
