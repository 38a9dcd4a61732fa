import Synchronization
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// Every open screen stream, by session, and the thread that brings them forward: after a
/// commit, the session's new state is rendered once per screen, each change set computed
/// once per client copy and encoded once, and every stream of the session is offered its
/// event and woken. Streams that fell behind get one event from their own copy.
///
/// Commits reach the hub by ``committed(_:_:)`` (this process's commits) and
/// ``noticed(_:)`` (another instance's, from the store), and ``recheck(id:)`` reads a session
/// again (a stream that just started, a session that may have expired).
final class StreamHub: Sendable {
    /// The streams of one session. Its fields are the hub's lock's.
    final class Channel: @unchecked Sendable {
        let id: String
        let key: SessionKey
        var streams: [ObjectIdentifier: ScreenStream] = [:]
        /// The newest revision this process committed or delivered: a notice of another
        /// instance's commit is read only when it is newer.
        var knownRevision = -1

        init(id: String, key: SessionKey) {
            self.id = id
            self.key = key
        }
    }

    struct Channels {
        var byKey: [SessionKey: Channel] = [:]
        var byID: [String: Channel] = [:]
        /// The backend's streams of the feed.
        var feeds: [ObjectIdentifier: FeedStream] = [:]
    }

    enum Job: Sendable {
        case deliver(Channel, SessionState)
        case gone(Channel)
        case readFeed(FeedStream)
        /// Wakes the deliverer for ``reloadedCatalogue``.
        case reload
    }

    let settings: StreamSettings
    let store: any SessionStore
    let cache: ScreenCache
    let channels = Locked(Channels())
    /// Open streams, screens' and the feed's: changed under the lock of ``channels`` only,
    /// and read without it by every commit (with none open, a commit costs one atomic load).
    let openStreams = Atomic<Int>(0)
    let jobs = BlockingQueue<Job>()
    /// Wakes the ticker early when the hub closes.
    let ticks = BlockingQueue<Void>(capacity: 1)
    let tick = Atomic<Int>(0)
    let threads = Locked<[WorkerThread]>([])
    /// The catalogue deliveries render with. The deliverer's own: it changes only between
    /// two of its batches, so no stream is offered an older definition's screen after a
    /// newer one's.
    nonisolated(unsafe) var catalogue: Catalogue
    /// A catalogue reloaded and not yet taken by the deliverer, which takes it before its
    /// next batch. Apart from the queue: a queue full of deliveries cannot lose it, and no
    /// delivery queued before it is rendered with the older definitions once it is there.
    let reloadedCatalogue = Locked<Catalogue?>(nil)

    init(settings: StreamSettings, store: any SessionStore, cache: ScreenCache, catalogue: Catalogue) {
        self.settings = settings
        self.store = store
        self.cache = cache
        self.catalogue = catalogue
        let deliverer = WorkerThread.start { [self] in runDeliverer() }
        let ticker = WorkerThread.start { [self] in runTicker() }
        threads.withLock { $0 = [deliverer, ticker] }
    }

    /// Stops the hub's threads; the server has ended the streams.
    func close() {
        jobs.close()
        ticks.close()
        let stopping = threads.withLock { threads -> [WorkerThread] in
            defer { threads = [] }
            return threads
        }
        for thread in stopping { thread.join() }
    }

    var count: Int { openStreams.load(ordering: .relaxed) }

    /// Refuses a stream before its reads when the limit is reached (its registration checks
    /// again).
    func requireRoom() throws(Problem) {
        guard count < settings.maxStreams else { throw full }
    }

    var full: Problem { .tooManyStreams(limit: settings.maxStreams, retryAfter: settings.heartbeatSeconds) }

    var currentTick: Int { tick.load(ordering: .relaxed) }

    // MARK: Streams opening and closing

    /// Takes a stream of session `id` in, unless a limit is reached.
    func register(_ stream: ScreenStream, sessionID id: String) throws(Problem) {
        let refusal = channels.withLock { [self] channels -> Problem? in
            guard count < settings.maxStreams else { return full }
            let channel = channels.byID[id] ?? Channel(id: id, key: stream.session)
            guard channel.streams.count < settings.maxStreamsPerSession else {
                return .tooManyStreamsOfSession(limit: settings.maxStreamsPerSession, retryAfter: settings.heartbeatSeconds)
            }
            channels.byID[id] = channel
            channels.byKey[channel.key] = channel
            channel.streams[ObjectIdentifier(stream)] = stream
            openStreams.wrappingAdd(1, ordering: .relaxed)
            return nil
        }
        if let refusal { throw refusal }
    }

    /// Takes a stream of the feed in, unless the limit is reached.
    func register(_ stream: FeedStream) throws(Problem) {
        let admitted = channels.withLock { [self] channels -> Bool in
            guard count < settings.maxStreams else { return false }
            channels.feeds[ObjectIdentifier(stream)] = stream
            openStreams.wrappingAdd(1, ordering: .relaxed)
            return true
        }
        guard admitted else { throw full }
    }

    /// A stream of the feed closed, or was never sent.
    func unregister(_ stream: FeedStream) {
        channels.withLock { [self] channels in
            if channels.feeds.removeValue(forKey: ObjectIdentifier(stream)) != nil { openStreams.wrappingSubtract(1, ordering: .relaxed) }
        }
    }

    /// Queues a read of the feed for `stream` on the hub's thread.
    func read(_ stream: FeedStream) {
        // A full (or closed) queue: the ticker's next feedChanged() asks again.
        if !jobs.push(.readFeed(stream)) { stream.readRefused() }
    }

    /// The feed may have grown (a session was created, changed or removed, here or on
    /// another instance): its streams read after their cursors.
    func feedChanged() {
        guard count > 0 else { return }
        for stream in channels.withLock({ $0.feeds.isEmpty ? [] : Array($0.feeds.values) }) { stream.feedChanged() }
    }

    /// A stream closed, or was never sent.
    func unregister(_ stream: ScreenStream) {
        channels.withLock { [self] channels in
            guard let channel = channels.byKey[stream.session], channel.streams.removeValue(forKey: ObjectIdentifier(stream)) != nil else {
                return
            }
            openStreams.wrappingSubtract(1, ordering: .relaxed)
            if channel.streams.isEmpty {
                channels.byKey[channel.key] = nil
                channels.byID[channel.id] = nil
            }
        }
    }

    // MARK: Commits

    /// A commit of this process made `state` the session's current state.
    func committed(_ name: SessionName, _ state: SessionState) {
        guard count > 0 else { return }
        feedChanged()
        let channel = channels.withLock { channels -> Channel? in
            let channel =
                switch name {
                case .token(let token): channels.byKey[SessionKey(token)]
                case .id(let id): channels.byID[id]
                }
            if let channel { channel.knownRevision = max(channel.knownRevision, state.revision) }
            return channel
        }
        if let channel { _ = jobs.push(.deliver(channel, state)) }
    }

    /// What another process sharing the store committed.
    func noticed(_ notice: StoreNotice) {
        guard count > 0 else { return }
        feedChanged()
        switch notice {
        case .changed(let id, let revision):
            let isNew = channels.withLock { channels in (channels.byID[id]?.knownRevision).map { $0 < revision } ?? false }
            if isNew { recheck(id: id) }
        case .removed(let id):
            removed(id: id)
        case .resynchronize:
            recheckAll()
        }
    }

    /// The catalogue was reloaded: every open stream is brought to its screen by the new
    /// definition (a change set from the old one), and a stream of a screen the catalogue no
    /// longer has ends with `event: gone`.
    func reloaded(_ catalogue: Catalogue) {
        reloadedCatalogue.withLock { $0 = catalogue }
        // Refused only by a full queue, whose next batch takes the catalogue all the same.
        _ = jobs.push(.reload)
    }

    /// Reads every streamed session again.
    func recheckAll() {
        for id in channels.withLock({ Array($0.byID.keys) }) { recheck(id: id) }
    }

    /// The session with this id was deleted: its streams end with `event: gone`.
    func removed(id: String) {
        feedChanged()
        guard let channel = channels.withLock({ $0.byID[id] }) else { return }
        _ = jobs.push(.gone(channel))
    }

    /// Reads the session again and brings its streams to its current state, or ends them
    /// when it is gone: for a change another instance committed, for a stream that has just
    /// started (a commit between its read and its registration found no stream), and for
    /// expiry.
    func recheck(id: String) {
        guard let channel = channels.withLock({ $0.byID[id] }) else { return }
        store.sessionRecord(id: id) { [self] result in
            switch result {
            case .success(let record?): _ = jobs.push(.deliver(channel, record.state))
            case .success(nil): _ = jobs.push(.gone(channel))
            case .failure: return  // the next recheck tries again
            }
        }
    }
}
