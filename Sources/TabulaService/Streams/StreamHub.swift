import Synchronization
import TabulaCore
import TabulaHTTP
import TabulaPlatform

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

    private struct Channels {
        var byKey: [SessionKey: Channel] = [:]
        var byID: [String: Channel] = [:]
        /// The backend's streams of the feed.
        var feeds: [ObjectIdentifier: FeedStream] = [:]
    }

    private enum Job: Sendable {
        case deliver(Channel, SessionState)
        case gone(Channel)
        case readFeed(FeedStream)
        case reload(Catalogue)
    }

    let settings: StreamSettings
    private let store: any SessionStore
    private let cache: ScreenCache
    private let channels = Locked(Channels())
    /// Open streams, screens' and the feed's: changed under the lock of ``channels`` only,
    /// and read without it by every commit (with none open, a commit costs one atomic load).
    private let openStreams = Atomic<Int>(0)
    private let jobs = BlockingQueue<Job>()
    /// Wakes the ticker early when the hub closes.
    private let ticks = BlockingQueue<Void>(capacity: 1)
    private let tick = Atomic<Int>(0)
    private let threads = Locked<[WorkerThread]>([])
    /// The catalogue deliveries render with. The deliverer's own: it changes only between
    /// two of its batches, so no stream is offered an older definition's screen after a
    /// newer one's.
    private nonisolated(unsafe) var catalogue: Catalogue

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
        for thread in threads.withLock({ $0 }) { thread.join() }
        threads.withLock { $0 = [] }
    }

    var count: Int { openStreams.load(ordering: .relaxed) }

    /// Refuses a stream before its reads when the limit is reached (its registration checks
    /// again).
    func requireRoom() throws(Problem) {
        guard count < settings.maxStreams else { throw full }
    }

    private var full: Problem { .tooManyStreams(limit: settings.maxStreams, retryAfter: settings.heartbeatSeconds) }

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
        _ = jobs.push(.reload(catalogue))
    }

    /// Reads every streamed session again.
    private func recheckAll() {
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

    // MARK: The deliverer's thread

    /// The shortest time between two batches of deliveries. Each batch resumes streams,
    /// and libmicrohttpd (0.9.75) walks every suspended connection of a server thread once
    /// per loop of that thread in which some were resumed: with thousands of idle streams,
    /// that walk is most of what a delivery costs, and batches that come closer together
    /// than this share it. A commit that comes after a quiet spell is delivered at once.
    /// `Scripts/bench-live` measures what it costs and what it buys.
    static let batchInterval: Int64 = 4_000_000

    private func runDeliverer() {
        var lastBatch: Int64 = 0
        while var batch = jobs.take(maximum: 256) {
            let waited = SystemClock.monotonicNanoseconds() - lastBatch
            if waited < Self.batchInterval {
                usleep(UInt32((Self.batchInterval - waited) / 1000))
                batch += jobs.take(maximum: 4096, timeout: 0) ?? []
            }
            lastBatch = SystemClock.monotonicNanoseconds()
            run(batch)
        }
    }

    private func run(_ batch: [Job]) {
        // The newest state of each session in the batch: older ones would only be replaced.
        var newest: [ObjectIdentifier: (Channel, SessionState)] = [:]
        var order: [ObjectIdentifier] = []
        for job in batch {
            switch job {
            case .deliver(let channel, let state):
                let key = ObjectIdentifier(channel)
                if let known = newest[key] {
                    if known.1.revision < state.revision { newest[key] = (channel, state) }
                } else {
                    newest[key] = (channel, state)
                    order.append(key)
                }
            case .gone(let channel):
                end(channel)
                newest[ObjectIdentifier(channel)] = nil
            case .readFeed(let stream):
                stream.read(from: store)
            case .reload(let catalogue):
                self.catalogue = catalogue
                // Each session read again is delivered with the new definitions.
                recheckAll()
            }
        }
        for key in order {
            guard let (channel, state) = newest[key] else { continue }
            deliver(state, to: channel)
        }
    }

    /// Ends the streams of a session that is gone, and lets them go: they no longer count.
    private func end(_ channel: Channel) {
        let streams = channels.withLock { [self] channels -> [ScreenStream] in
            if channels.byID[channel.id] === channel {
                channels.byID[channel.id] = nil
                channels.byKey[channel.key] = nil
            }
            let streams = Array(channel.streams.values)
            channel.streams = [:]
            openStreams.wrappingSubtract(streams.count, ordering: .relaxed)
            return streams
        }
        for stream in streams { stream.end() }
    }

    /// Offers every stream of the session the event that takes its copy to `state`.
    private func deliver(_ state: SessionState, to channel: Channel) {
        let streams = channels.withLock { _ in
            channel.knownRevision = max(channel.knownRevision, state.revision)
            return Array(channel.streams.values)
        }
        // The new screen, rendered once per screen the session's streams show.
        var targets: [String: ScreenCopy] = [:]
        var events = EventCache()
        for stream in streams {
            guard let definition = catalogue.screen(id: stream.screenID) else {
                unregister(stream)
                stream.end(.screenRemoved)
                continue
            }
            if definition !== stream.definition { stream.adopt(definition) }
            let target: ScreenCopy
            if let known = targets[definition.id] {
                target = known
            } else {
                let screen =
                    cache.screenForDiff(session: channel.key, definition, revision: state.revision) ?? render(definition, state)
                target = ScreenCopy(definitionID: definition.definitionID, revision: state.revision, screen: screen)
                targets[definition.id] = target
            }
            // A copy changes only when the server takes the waiting event; a few attempts
            // always suffice, since each finds no waiting event left to take.
            for _ in 0..<4 {
                guard stream.wants(target), let base = stream.copy else { break }
                let event = events.event(definition, from: base, to: target)
                if stream.offer(event, from: base, to: target) { break }
            }
        }
    }

    /// The events of one delivery, each computed once per screen and client copy.
    private struct EventCache {
        private struct Key: Hashable {
            let screen: String
            let definitionID: String
            let revision: Int
        }

        private var events: [Key: [UInt8]] = [:]

        /// `event: changes` from `base` to `target`; empty when the screen did not change.
        mutating func event(_ definition: ScreenDefinition, from base: ScreenCopy, to target: ScreenCopy) -> [UInt8] {
            let key = Key(screen: definition.id, definitionID: base.definitionID, revision: base.revision)
            if let known = events[key] { return known }
            let changes = diff(old: base.screen, new: target.screen)
            let event =
                changes.isEmpty
                ? []
                : EventStreamFrames.event(
                    "changes", id: target.eventID,
                    data: AnswerBody.encode(definition, from: base.revision, to: target.revision, changes: changes))
            events[key] = event
            return event
        }
    }

    // MARK: The ticker's thread

    /// A heartbeat for a stream that started; a stream whose response was never sent (a
    /// shutdown answered its request first) is let go a tick after its own.
    private func tend(_ stream: some TickedStream, at tick: Int, unregister: () -> Void) {
        let status = stream.status
        if status.started {
            stream.heartbeat()
        } else if stream.openedAtTick < tick - 1 {
            unregister()
        }
    }

    /// Every heartbeat interval: a heartbeat on every stream, streams whose response was
    /// never sent let go; every recheck interval, every streamed session read again.
    private func runTicker() {
        var sinceRecheck = 0
        while ticks.take(maximum: 1, timeout: Double(settings.heartbeatSeconds)) != nil {
            let current = tick.wrappingAdd(1, ordering: .relaxed).newValue
            let (screens, feeds) = channels.withLock { channels in
                (channels.byID.values.flatMap { $0.streams.values }, Array(channels.feeds.values))
            }
            for stream in screens {
                tend(stream, at: current) {
                    unregister(stream)
                    stream.abandon()
                }
            }
            for stream in feeds {
                tend(stream, at: current) {
                    unregister(stream)
                    stream.abandon()
                }
            }
            // Entries no commit here announced (an expiry; on PostgreSQL, one that was not
            // readable yet when its commit was announced).
            feedChanged()
            sinceRecheck += settings.heartbeatSeconds
            if sinceRecheck >= settings.recheckSeconds {
                sinceRecheck = 0
                recheckAll()
            }
        }
    }
}

/// What the hub's ticker tends: a stream's heartbeat, and whether its response was sent.
protocol TickedStream: AnyObject {
    var status: (started: Bool, closed: Bool) { get }
    var openedAtTick: Int { get }
    func heartbeat()
}

extension ScreenStream: TickedStream {}
extension FeedStream: TickedStream {}
