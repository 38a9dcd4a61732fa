public import TabulaCore
import TabulaHTTP

/// Settings of the service around the HTTP server.
public struct ServiceConfiguration: Sendable {
    /// Rendered screens kept for sessions (each a few kilobytes).
    public var screenCacheEntries = 50_000
    /// The bytes of those screens, as JSON (``ScreenCache``): a bound whatever their size.
    public var screenCacheBytes = 256 << 20
    /// Where the line per request goes.
    public var accessLog = AccessLog.logger
    /// When set, every `/v1` route requires `Authorization: Bearer <key>` (this key or the
    /// backend key).
    public var apiKey: APIKey?
    /// The key of the app's backend (`Authorization: Bearer <key>`) on the backend's routes;
    /// `nil` turns them off (403).
    public var backendKey: APIKey?
    /// Cross-origin access; `nil` (the default) sends no CORS headers.
    public var cors: CORSPolicy?
    /// Bounds on each session's state.
    public var stateLimits = StateLimits()
    /// Heartbeats and limits of screen streams.
    public var streams = StreamSettings()
    /// Serves the preview page (`/preview`) for authors.
    public var preview = false
    /// How long a request refused for its key (401 `unauthorized`) waits for its answer.
    public var keyRefusalPauseMilliseconds = 250
    /// The service's own threads, where work continues that a store reports from a thread
    /// of its own (``ServiceStore``): one per processor.
    public var workerThreads = ServerConfiguration.processorCount
    /// New sessions a client address may create a minute (a burst of as many, then evenly);
    /// beyond, 429 `too-many-sessions`. The backend's, with its key, are not counted. 0: no limit.
    public var newSessionsPerMinute = 600
    /// The proxies whose `X-Forwarded-For` names the client, for the limits per address.
    public var trustedProxies = TrustedProxies.none
    /// The most row kinds a client context may list (each at most 64 bytes).
    public var maxClientKinds = 64
    /// The URL schemes an `openURL` effect may carry (``URLSchemes``); the catalogue must be
    /// loaded with the same.
    public var urlSchemes = URLSchemes.standardOnly
    /// The app's backend, which `call` actions ask; `nil`: such events get 503
    /// `actions-not-configured`.
    public var actions: ActionSettings?

    public init() {}
}
