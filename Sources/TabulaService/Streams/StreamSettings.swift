/// How the service holds screen streams.
public struct StreamSettings: Sendable {
    /// Seconds between heartbeats on an idle stream.
    public var heartbeatSeconds = 15
    /// Open streams in all; more get 429.
    public var maxStreams = 10_000
    /// Open streams of one session; more get 429.
    public var maxStreamsPerSession = 16
    /// Seconds between reads of every streamed session, which end the streams of sessions
    /// that expired (deletions end them at once).
    public var recheckSeconds = 60

    public init() {}
}
