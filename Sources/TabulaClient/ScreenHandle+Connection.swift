extension ScreenHandle {
    /// Whether a screen handle reaches the service, for an app that tells its user (a
    /// "Connecting…" line over a screen that may be out of date).
    ///
    /// The handle tries again by itself whatever happens; this only says how it is going. Its
    /// requests (the screen's `GET`, events) and its stream each count: the handle is
    /// `retrying` while either's last attempt failed, so a stream the service refuses stays
    /// `retrying` however many events get their answers meanwhile. A stream that ends, and
    /// opens again at once, does not change it.
    public enum Connection: Hashable, Sendable {
        /// Nothing answered yet: the handle is loading its screen, or opening its stream
        /// for the first time.
        case connecting
        /// The service answered the last request (with its screen, an event's answer, or a
        /// refusal of its own) and the stream is open (it sent its first field).
        case connected
        /// The last request, or the last attempt to open the stream, got no answer from the
        /// service, and the handle waits before it tries again: no connection, a stream
        /// silent for twice the heartbeat, a `503` (the store or the backend busy), a `429`
        /// or other refusal of the stream, or an answer that is not the service's (a proxy's
        /// `5xx` page, a captive portal's page). `reason` says which, for a log or a detail
        /// line.
        case retrying(reason: String)
    }

    /// Whether the handle reaches the service (see ``Connection``).
    public var connection: Connection {
        if let failure = requestFailure ?? streamFailure { return .retrying(reason: failure) }
        return answeredOnce && streamOpenedOnce ? .connected : .connecting
    }

    /// A new stream of ``connection``: its state now, then each change, the newest kept for
    /// a reader that is behind. Each call makes its own (a view that goes and comes back asks
    /// again); each finishes when its reader stops or the handle ends.
    public func connectionChanges() -> AsyncStream<Connection> {
        let (changes, continuation) = AsyncStream<Connection>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.yield(connection)
        guard !hasEnded else {
            continuation.finish()
            return changes
        }
        let reader = nextConnectionReader
        nextConnectionReader += 1
        connectionReaders[reader] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stopReadingConnection(reader) }
        }
        return changes
    }

    /// A request got the service's answer (`nil`), or none (why).
    func noteRequest(failed reason: String?) {
        requestFailure = reason
        if reason == nil { answeredOnce = true }
        publishConnection()
    }

    /// The stream opened (`nil`: it sent its first field), or failed to (why).
    func noteStream(failed reason: String?) {
        streamFailure = reason
        if reason == nil {
            answeredOnce = true
            streamOpenedOnce = true
        }
        publishConnection()
    }

    func finishConnectionReaders() {
        for reader in connectionReaders.values { reader.finish() }
        connectionReaders = [:]
    }

    private func publishConnection() {
        let now = connection
        guard !hasEnded, now != connectionPublished else { return }
        connectionPublished = now
        for reader in connectionReaders.values { reader.yield(now) }
    }

    private func stopReadingConnection(_ reader: Int) {
        connectionReaders[reader] = nil
    }
}
