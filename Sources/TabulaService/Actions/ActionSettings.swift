/// Where and how the service asks the app's backend when an event reaches a `call` action
/// (`tabula serve --actions-url … --actions-secret …`).
public struct ActionSettings: Sendable {
    /// The backend's base URL (`http` or `https`); an action `NAME` is `POST URL/NAME`.
    public var url: String
    /// The key of the HMAC-SHA256 in each call's `Tabula-Signature` header.
    public var secret: String
    /// How long a call may take before the event is answered 504 `action-timeout`.
    public var timeout: Duration = .seconds(5)
    /// The most calls in flight at once; beyond, 503 `actions-busy`.
    public var concurrency = 100
    /// A PEM file of the certificate authorities an `https` backend's certificate must come
    /// from, instead of the system's: for a backend whose certificate a private CA signed.
    public var certificateAuthorities: String?

    public init(url: String, secret: String, timeout: Duration = .seconds(5), concurrency: Int = 100, certificateAuthorities: String? = nil) {
        self.url = url
        self.secret = secret
        self.timeout = timeout
        self.concurrency = concurrency
        self.certificateAuthorities = certificateAuthorities
    }

    /// The URL of an action: the base without its trailing `/`, then `/NAME` (a name is a
    /// path segment that needs no escaping).
    func url(of action: String) -> String {
        var base = Substring(url)
        while base.hasSuffix("/") { base = base.dropLast() }
        return "\(base)/\(action)"
    }
}
