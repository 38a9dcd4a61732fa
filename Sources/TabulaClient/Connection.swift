/// Whether a screen handle reaches the service, for an app that tells its user (a
/// "Connecting…" banner over a screen that may be out of date).
///
/// The handle tries again by itself whatever happens; this only says how it is going. It
/// changes with attempts, not with a stream's end: a stream that a proxy cuts and that opens
/// again at once stays `connected`.
public enum Connection: Hashable, Sendable {
    /// Nothing answered yet: the handle is loading its screen.
    case connecting
    /// The service answered the last attempt: the screen loaded, the stream opened, or an
    /// event got its answer (an event's refusal included: the service gave it).
    case connected
    /// The last attempt got no usable answer, and the handle waits before it tries again:
    /// no connection, a connection cut or silent, a `5xx` (such as `503` while the store or
    /// the backend is busy), a `429`, or an answer that is not the service's (a proxy's or a
    /// captive portal's page). `reason` says which, for a log or a detail line.
    case retrying(reason: String)
}
