import TabulaModel

/// A client's session with a Tabula service: its token, and a handle per screen.
///
/// Create one with ``create(baseURL:context:configuration:transport:)`` and keep ``token``
/// (in the keychain) to resume it with ``init(baseURL:token:configuration:transport:)`` on the
/// next launch.
public final class TabulaSession: Sendable {
    /// What the service renders for: the language and the row kinds the app draws.
    public struct Context: Hashable, Sendable {
        public var locale: String?
        public var kinds: [String]?

        public init(locale: String? = nil, kinds: [String]? = nil) {
            self.locale = locale
            self.kinds = kinds
        }
    }

    /// The client's timing.
    public struct Configuration: Hashable, Sendable {
        /// The service's `--stream-heartbeat`: a stream silent for twice as long is dead.
        public var heartbeat: Duration = .seconds(15)
        /// The longest wait between two reconnections (exponential backoff, with jitter, from
        /// the stream's `retry:`).
        public var maximumReconnectDelay: Duration = .seconds(8)
        /// How long a request may wait for its answer before it is given up and tried again.
        public var requestTimeout: Duration = .seconds(30)

        public init() {}
    }

    /// The service, such as `https://tabula.example.com` (a path prefix is kept).
    public let baseURL: String
    /// The session's secret: send nothing else to resume it.
    public let token: String
    /// The service's `--api-key`, sent as `Authorization: Bearer` with every request; `nil`
    /// for a service that requires none.
    public let apiKey: String?
    public let configuration: Configuration
    let transport: any HTTPTransport

    /// Resumes a session from its token. A token the service does not know ends the first
    /// screen handle with ``EndReason/sessionEnded(_:)``; a missing or wrong `apiKey`, with
    /// ``EndReason/invalidRequest(_:)``.
    public init(
        baseURL: String, token: String, apiKey: String? = nil, configuration: Configuration = Configuration(), transport: any HTTPTransport
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.apiKey = apiKey
        self.configuration = configuration
        self.transport = transport
    }

    /// Creates a session for `context` (`POST /v1/sessions`), trying again a few times while
    /// the service cannot be reached, or refuses for a while (`429`, `503`: after the
    /// answer's `Retry-After`, up to `maximumReconnectDelay`).
    public static func create(
        baseURL: String, context: Context = Context(), apiKey: String? = nil, configuration: Configuration = Configuration(),
        transport: any HTTPTransport
    ) async throws(ClientError) -> TabulaSession {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("client")
        writer.rawValue(context.jsonBytes)
        writer.endObject()
        let unnamed = TabulaSession(baseURL: baseURL, token: "", apiKey: apiKey, configuration: configuration, transport: transport)
        let request = unnamed.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")], body: writer.bytes)
        let answer = try await unnamed.sendWhileUnavailable(request, attempts: 5)
        guard answer.status == 201 else { throw ClientError.problem(ServiceProblem(answer: answer)) }
        guard let token = try JSONValue.answer(answer.body).objectValue?["session"]?.stringValue else {
            throw ClientError.malformedAnswer("a new session's answer has no token")
        }
        // Every request carries the token in a header.
        guard HTTPFieldValue.isSafe(token) else {
            throw ClientError.malformedAnswer("a new session's token is not one a header can carry (empty, or with control characters)")
        }
        return TabulaSession(baseURL: baseURL, token: token, apiKey: apiKey, configuration: configuration, transport: transport)
    }

    /// The screen at the catalogue's defaults, without a session (`GET /v1/screens/{id}`
    /// without `X-Session`): what a new session shows first, in the service's default
    /// language. Asked before ``create(baseURL:context:apiKey:configuration:transport:)``, it
    /// tells whether a screen (and an item of it) exists without leaving a session behind; a
    /// refusal is thrown as ``ClientError/problem(_:)``, and
    /// ``EndReason/init(refusingScreenRequest:)`` says whether asking again can help.
    public static func defaultScreen(
        _ id: String, item: String? = nil, baseURL: String, apiKey: String? = nil, configuration: Configuration = Configuration(),
        transport: any HTTPTransport
    ) async throws(ClientError) -> Screen {
        // An empty token is not sent: the request names no session.
        let unnamed = TabulaSession(baseURL: baseURL, token: "", apiKey: apiKey, configuration: configuration, transport: transport)
        let request = unnamed.request("GET", ScreenHandle.path(of: id), query: ScreenHandle.query(item: item))
        let answer: HTTPAnswer
        do {
            answer = try await transport.send(request)
        } catch {
            throw ClientError.transport(error.description)
        }
        guard answer.status == 200 else { throw ClientError.problem(ServiceProblem(answer: answer)) }
        guard let screen = try? Screen(jsonBytes: answer.body), screen.id == id, screen.item == item else {
            throw ClientError.malformedAnswer("the answer to the screen's GET is not the screen \"\(id)\"")
        }
        return screen
    }

    /// Replaces the session's client context (`PUT /v1/session/client`): the user chose
    /// another language, or the app draws other kinds now.
    public func replaceContext(_ context: Context) async throws(ClientError) {
        let answer: HTTPAnswer
        do {
            answer = try await transport.send(contextRequest(context))
        } catch {
            throw ClientError.transport(error.description)
        }
        guard answer.status == 200 else { throw ClientError.problem(ServiceProblem(answer: answer)) }
    }

    /// ``replaceContext(_:)``, waiting for the service as a screen handle does after a
    /// disconnection: while it cannot be reached, or refuses for a while (`429`, `503`: after
    /// the answer's `Retry-After`), it is asked again with backoff, until the task is
    /// cancelled. Any other refusal is thrown at once.
    public func replaceContextOnceReachable(_ context: Context) async throws(ClientError) {
        let answer = try await sendWhileUnavailable(contextRequest(context), attempts: nil)
        guard answer.status == 200 else { throw ClientError.problem(ServiceProblem(answer: answer)) }
    }

    /// Sends `request` until an answer other than a passing refusal comes: while the service
    /// cannot be reached, or refuses for a while (`429`, `503`: nothing was done; after the
    /// answer's `Retry-After`), it is asked again with backoff, up to `attempts` times in all
    /// (`nil`: until the task is cancelled). The last failure is thrown.
    private func sendWhileUnavailable(_ request: HTTPRequest, attempts limit: Int?) async throws(ClientError) -> HTTPAnswer {
        var backoff = Backoff(initial: .milliseconds(250), maximum: configuration.maximumReconnectDelay)
        var attempts = 0
        while true {
            let failure: ClientError
            var notBefore: Duration?
            do {
                let answer = try await transport.send(request)
                guard answer.status == 429 || answer.status == 503 else { return answer }
                failure = .problem(ServiceProblem(answer: answer))
                notBefore = answer.retryAfter
            } catch {
                failure = .transport(error.description)
            }
            attempts += 1
            guard !Task.isCancelled, limit.map({ attempts < $0 }) ?? true else { throw failure }
            try? await Task.sleep(for: backoff.next(notBefore: notBefore))
        }
    }

    private func contextRequest(_ context: Context) -> HTTPRequest {
        request("PUT", "/v1/session/client", headers: [("Content-Type", "application/json")], body: context.jsonBytes)
    }

    /// A handle on one screen of the session (on one item, for an item screen). Call
    /// ``ScreenHandle/start()`` and read its ``ScreenHandle/updates``.
    public func screen(_ id: String, item: String? = nil) -> ScreenHandle {
        ScreenHandle(session: self, screenID: id, item: item)
    }

    /// Ends every request and stream of the session's handles, and the handles with them
    /// (their ``ScreenHandle/updates`` end with ``EndReason/closed``).
    public func close() {
        transport.close()
    }

    /// A request to the service: `path` below ``baseURL``, the query's values
    /// percent-encoded, the session's token in `X-Session`, and the ``apiKey`` in
    /// `Authorization`.
    func request(
        _ method: String, _ path: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil, idleTimeout: Duration? = nil
    ) -> HTTPRequest {
        var url = baseURL + path
        if !query.isEmpty { url += "?" + query.map { "\($0.name)=\($0.value.percentEncoded)" }.joined(separator: "&") }
        // A token a header cannot carry (an app's stored one, with a line break) is not sent:
        // the service then answers 401, and the handle ends with the session.
        var fields = HTTPFieldValue.isSafe(token) ? [("X-Session", token)] : []
        // Likewise a key with a line break: the service answers 401 `unauthorized`.
        if let apiKey, HTTPFieldValue.isSafe(apiKey) { fields.append(("Authorization", "Bearer \(apiKey)")) }
        return HTTPRequest(
            method: method, url: url, headers: fields + headers, body: body, idleTimeout: idleTimeout ?? configuration.requestTimeout)
    }
}

extension TabulaSession.Context {
    /// `{"kinds"?, "locale"?}`, as the service reads a client context.
    var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        if let kinds {
            writer.key("kinds")
            writer.array(kinds) { writer, kind in writer.string(kind) }
        }
        if let locale {
            writer.key("locale")
            writer.string(locale)
        }
        writer.endObject()
        return writer.bytes
    }
}

extension String {
    /// The string with every byte but RFC 3986's unreserved characters percent-encoded: one
    /// path segment, or one query value.
    var percentEncoded: String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var result = ""
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return result
    }
}
