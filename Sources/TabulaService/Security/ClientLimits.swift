import TabulaHTTP
import TabulaPlatform

/// What one client may make the service keep: new sessions per address, and the size of
/// its client context. The stores bound the rest (history, answers, cache).
final class ClientLimits: Sendable {
    let newSessions: NewSessionRate
    let trustedProxies: TrustedProxies
    let maxClientKinds: Int
    /// Counts the refusals these limits made.
    let limitCounts = LimitCounts()

    init(_ configuration: ServiceConfiguration) {
        newSessions = NewSessionRate(perMinute: configuration.newSessionsPerMinute)
        trustedProxies = configuration.trustedProxies
        maxClientKinds = configuration.maxClientKinds
    }

    /// Admits a new session for the request's client; 429 `too-many-sessions` beyond its rate.
    func admitNewSession(_ request: Request) throws(Problem) {
        let address = trustedProxies.clientAddress(of: request)
        guard let retryAfter = newSessions.admit(address, now: SystemClock.monotonicNanoseconds()) else { return }
        limitCounts.add(.newSessions)
        throw Problem.tooManySessions(perMinute: newSessions.perMinute, retryAfter: retryAfter)
    }
}
