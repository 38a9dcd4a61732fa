import Synchronization
import TabulaCore
import TabulaPlatform

/// Sessions in memory, for tests and `--store memory`: nothing survives a restart. Each
/// session has its own lock, so events on one session are serialized and sessions do not
/// wait for each other. It keeps the last `keepRevisions` states, as the current state and
/// the undo of each revision (see ``StateUndo``), and the answers of event ids younger than
/// the idempotency TTL. It keeps no event log: nothing could read one back (the durable
/// stores keep theirs in their database). Its feed is a ``MemoryFeed``.
public final class MemorySessionStore: SessionStore {
    let settings: StoreSettings
    private let sessions = ShardedDictionary<SessionKey, MemorySession>()
    /// Each session's key by its public id. Taken before a shard of `sessions` whenever
    /// both are, so that a session and its id come and go together.
    private let ids = Locked<[String: SessionKey]>([:])
    /// Kept definitions by id, each with the order in which it was last served.
    private let definitions = Locked<(byID: [String: (definition: KeptDefinition, served: Int)], served: Int)>(([:], 0))
    private let feed: MemoryFeed
    private let now: @Sendable () -> Milliseconds
    private let retention: RetentionTimer
    public let limitCounts = LimitCounts()

    /// Feed entries kept at most, besides the retention: few enough that the oldest, which
    /// each new entry drops, is still near in memory (a larger feed made every event dearer:
    /// `Scripts/bench-pairs` with `MemorySessionStore(feedCapacity:)` changed).
    public static let defaultFeedCapacity = 10_000

    /// A store whose retention passes run every `retentionIntervalSeconds` (0: only when
    /// `removeExpired` is called), as the durable stores' do.
    public init(
        settings: StoreSettings = StoreSettings(), feedCapacity: Int = defaultFeedCapacity,
        retentionIntervalSeconds: Double = 60, now: @escaping @Sendable () -> Milliseconds = unixMilliseconds
    ) {
        self.settings = settings
        self.now = now
        feed = MemoryFeed(capacity: feedCapacity)
        retention = RetentionTimer(intervalSeconds: retentionIntervalSeconds)
        retention.start(removingExpiredFrom: self)
    }

    public func createSession(_ new: NewSession, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        let time = now()
        let session = MemorySession(new, time: time, settings: settings)
        let key = SessionKey(new.token)
        let created = ids.withLock { ids -> Bool in
            guard ids[new.id] == nil else { return false }
            let stored = sessions.withShard(of: key) { shard -> Bool in
                guard shard[key] == nil else { return false }
                shard[key] = session
                return true
            }
            if stored {
                ids[new.id] = key
                feed.append(sessionID: new.id, subject: new.subject, revision: new.state.revision, record: .created(new.state), time: time)
            }
            return stored
        }
        completion(created ? .success(()) : .failure(StoreError("session token or id collision")))
    }

    public func sessionRecord(id: String, completion: @escaping @Sendable (Result<SessionRecord?, StoreError>) -> Void) {
        guard let key = ids.withLock({ $0[id] }), let session = sessions[key] else { return completion(.success(nil)) }
        let record = SessionRecord(
            id: id, subject: session.subject, state: session.current.read { $0 }, createdAt: session.createdAt,
            lastUsedAt: session.watch.lastUsed.load(ordering: .relaxed))
        completion(.success(record))
    }

    public func deleteSession(id: String, completion: @escaping @Sendable (Result<Bool, StoreError>) -> Void) {
        let time = now()
        let removed = ids.withLock { ids -> Bool in
            guard let key = ids.removeValue(forKey: id) else { return false }
            if let session = sessions.withShard(of: key, { $0.removeValue(forKey: key) }) { remove(session, time: time) }
            return true
        }
        completion(.success(removed))
    }

    public func read(
        session name: SessionName, _ request: SessionRead,
        completion: @escaping @Sendable (Result<SessionSnapshot?, StoreError>) -> Void
    ) {
        guard let session = lookup(name) else { return completion(.success(nil)) }
        let time = now()
        let cutoff = time - Milliseconds(settings.idempotencyTTLSeconds) * 1000
        if case .token = name { session.watch.lastUsed.store(time, ordering: .relaxed) }
        let snapshot = session.lock.withLock { data in
            SessionSnapshot(
                current: data.current, past: request.revision.map(data.lookup) ?? .found(data.current),
                answer: request.eventID.flatMap { data.answer($0, notBefore: cutoff) }, time: time,
                id: request.id ? session.id : nil)
        }
        completion(.success(snapshot))
    }

    public func commit(
        session name: SessionName, _ commit: SessionCommit,
        completion: @escaping @Sendable (Result<CommitResult, StoreError>) -> Void
    ) {
        guard let session = lookup(name) else { return completion(.success(.unknownSession)) }
        let time = now()
        let cutoff = time - Milliseconds(settings.idempotencyTTLSeconds) * 1000
        let result = session.lock.withLock { data -> CommitResult in
            guard !data.removed else { return .unknownSession }
            guard data.current.revision == commit.expectedRevision else { return .conflict }
            if let eventID = commit.event.eventID, commit.answer != nil, data.answer(eventID, notBefore: cutoff) != nil { return .conflict }
            let dropped = data.apply(commit, settings: settings, time: time)
            limitCounts.add(.historyBytes, dropped.revisions)
            limitCounts.add(.eventAnswers, dropped.answers)
            let newest = data.current
            session.current.write { $0 = newest }
            session.watch.advance(to: newest.revision)
            if let change = commit.change {
                feed.append(sessionID: session.id, subject: session.subject, revision: newest.revision, record: change.feed, time: time)
            }
            // Every change is use, a backend's write as a client's event, as the durable
            // stores count it; of reads, only a client's. Marked under the lock, under which
            // retention checks it again: a session committed to is not removed after.
            session.watch.lastUsed.store(time, ordering: .relaxed)
            return .committed
        }
        completion(.success(result))
    }

    public func currentStateIfCached(session key: SessionKey) -> WatchedState? {
        guard let session = sessions[key] else { return nil }
        touch(session: key, watch: session.watch)
        return WatchedState(state: session.current.read { $0 }, watch: session.watch)
    }

    /// Refreshes the last use at most once a second: a session expires at most a second
    /// early, after a TTL of minutes or more, and reads stop writing memory that the
    /// threads answering them share.
    public func touch(session key: SessionKey, watch: SessionWatch) {
        _ = watch.touch(at: now(), interval: 1000)
    }

    public func keepDefinitions(_ kept: [KeptDefinition]) throws(StoreError) -> [String] {
        let keep = settings.keepDefinitions
        return definitions.withLock { definitions in
            definitions.served += 1
            for definition in kept { definitions.byID[definition.id] = (definition, definitions.served) }
            var removed: [String] = []
            for screen in Set(kept.map(\.screen)) {
                let versions = definitions.byID.values.filter { $0.definition.screen == screen }.sorted { $0.served > $1.served }
                for old in versions.dropFirst(keep) {
                    definitions.byID[old.definition.id] = nil
                    removed.append(old.definition.id)
                }
            }
            return removed
        }
    }

    public func keptDefinition(id: String, completion: @escaping @Sendable (Result<KeptDefinition?, StoreError>) -> Void) {
        completion(.success(definitions.withLock { $0.byID[id]?.definition }))
    }

    public func sessionCount() -> Int {
        sessions.count
    }

    public var name: String { "memory" }

    public func checkHealth(completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        completion(.success(()))
    }

    /// Every completion runs inside its call: nothing waits.
    public func continueCompletions(on pool: WorkerPool) -> Bool { true }

    public func close() {
        retention.stop()
    }

    public func removeExpired(completion: @escaping @Sendable (Result<Int, StoreError>) -> Void) {
        let time = now()
        let sessionCutoff = time - Milliseconds(settings.sessionTTLSeconds) * 1000
        let answerCutoff = time - Milliseconds(settings.idempotencyTTLSeconds) * 1000
        var removed = 0
        ids.withLock { ids in
            sessions.forEachShard { shard in
                let idle = shard.filter { $0.value.watch.lastUsed.load(ordering: .relaxed) < sessionCutoff }
                for (key, session) in idle {
                    // Judged idle before its lock was taken: a commit since has marked use.
                    guard remove(session, time: time, ifUnusedSince: sessionCutoff) else { continue }
                    shard.removeValue(forKey: key)
                    ids.removeValue(forKey: session.id)
                    removed += 1
                }
                for session in shard.values {
                    session.lock.withLock { data in data.removeAnswers(olderThan: answerCutoff) }
                }
            }
        }
        feed.removeOlder(than: time - Milliseconds(settings.feedRetentionSeconds) * 1000)
        completion(.success(removed))
    }

    public func readFeed(after: FeedCursor?, limit: Int, completion: @escaping @Sendable (Result<FeedPage, StoreError>) -> Void) {
        completion(.success(feed.read(after: after, limit: limit)))
    }

    /// Ends a session taken out of the maps: a commit that looked it up before is refused
    /// from now on, and its `deleted` entry follows its last change in the feed. With a
    /// cutoff, only if it was not used since (checked under its lock, under which commits
    /// mark use); whether it was ended.
    @discardableResult
    private func remove(_ session: MemorySession, time: Milliseconds, ifUnusedSince cutoff: Milliseconds? = nil) -> Bool {
        let removed = session.lock.withLock { data -> Bool in
            if let cutoff, session.watch.lastUsed.load(ordering: .relaxed) >= cutoff { return false }
            data.removed = true
            feed.append(sessionID: session.id, subject: session.subject, revision: data.current.revision, record: .deleted, time: time)
            return true
        }
        if removed { session.watch.end() }
        return removed
    }

    private func lookup(_ name: SessionName) -> MemorySession? {
        switch name {
        case .token(let token): sessions[SessionKey(token)]
        case .id(let id): ids.withLock { $0[id] }.flatMap { sessions[$0] }
        }
    }
}

/// One session in memory: its data behind its own lock, its current state readable
/// without waiting for writers of other data, its revision and last use in its watch.
final class MemorySession: Sendable {
    let id: String
    let subject: String?
    let createdAt: Milliseconds
    let lock: Locked<MemorySessionData>
    /// A copy of the newest state, for reads that need nothing else.
    let current: ReadWriteLocked<SessionState>
    let watch: SessionWatch

    init(_ new: NewSession, time: Milliseconds, settings: StoreSettings) {
        id = new.id
        subject = new.subject
        createdAt = time
        lock = Locked(MemorySessionData(state: new.state, settings: settings))
        current = ReadWriteLocked(new.state)
        watch = SessionWatch(revision: new.state.revision, lastUsed: time)
    }
}

/// A session's history, mutated in place under its session's lock (a class, so that the
/// transaction's view and the commit share it instead of copying it).
final class MemorySessionData: @unchecked Sendable {
    private(set) var current: SessionState
    /// How to go back from each kept revision to the one before it, oldest first: the
    /// newest undoes `current`. Each with its size (``StateUndo/bytes``).
    private(set) var undos: RingBuffer<(undo: StateUndo, bytes: Int)>
    /// The sizes of `undos` added up, within ``StoreSettings/maxHistoryBytes``.
    private(set) var historyBytes = 0
    /// Answers by event id, each with the order it was stored in.
    private var answers: [EventIDBytes: (answer: StoredAnswer, order: Int)] = [:]
    /// The event ids of `answers`, oldest first, at most ``StoreSettings/maxAnswersPerSession``.
    private var answerOrder: RingBuffer<(eventID: EventIDBytes, order: Int)>
    private var answersStored = 0
    /// Set when the session is deleted or expires, for commits that looked it up before.
    var removed = false

    init(state: SessionState, settings: StoreSettings) {
        current = state
        undos = RingBuffer(capacity: settings.keepRevisions)
        answerOrder = RingBuffer(capacity: settings.maxAnswersPerSession)
    }

    /// The oldest revision that ``state(at:)`` can rebuild.
    var oldestRevision: Int { current.revision - undos.count }

    /// The state at a revision, if it is kept.
    func lookup(_ revision: Int) -> RevisionLookup {
        let newest = current.revision
        if revision > newest { return .future(current: newest) }
        if revision < oldestRevision { return .tooOld(oldestKept: oldestRevision) }
        return .found(state(at: revision))
    }

    /// The answer stored for an event id, if it is younger than `cutoff`.
    func answer(_ eventID: String, notBefore cutoff: Milliseconds) -> StoredAnswer? {
        guard let stored = answers[EventIDBytes(eventID)], stored.answer.time >= cutoff else { return nil }
        return stored.answer
    }

    /// Forgets answers stored before `cutoff` (their order entries go when they come up).
    func removeAnswers(olderThan cutoff: Milliseconds) {
        answers = answers.filter { $0.value.answer.time >= cutoff }
    }

    /// The state at a kept revision (`oldestRevision...current.revision`): the current
    /// state with the undos of the revisions after it applied, newest first.
    func state(at revision: Int) -> SessionState {
        var state = current
        var position = undos.count - 1
        while state.revision > revision, let undo = undos.element(at: position) {
            undo.undo.apply(to: &state)
            position -= 1
        }
        return state
    }

    /// Applies a commit; returns how many revisions and answers it dropped beyond the
    /// bounds of ``StoreSettings/maxHistoryBytes`` and ``StoreSettings/maxAnswersPerSession``
    /// (those that ``StoreSettings/keepRevisions`` and the idempotency TTL drop are not counted).
    func apply(_ commit: SessionCommit, settings: StoreSettings, time: Milliseconds) -> (revisions: Int, answers: Int) {
        var dropped = (revisions: 0, answers: 0)
        if let state = commit.state {
            let undo = StateUndo(from: state, to: current, changedKeys: commit.changedKeys)
            let bytes = undo.bytes
            historyBytes += bytes
            if let old = undos.append((undo, bytes)) { historyBytes -= old.bytes }
            current = state
            while historyBytes > settings.maxHistoryBytes, let oldest = undos.removeFirst() {
                historyBytes -= oldest.bytes
                dropped.revisions += 1
            }
        }
        if let answer = commit.answer, let eventID = commit.event.eventID.map(EventIDBytes.init) {
            answersStored += 1
            answers[eventID] = (answer, answersStored)
            if let oldest = answerOrder.append((eventID, answersStored)), answers[oldest.eventID]?.order == oldest.order {
                answers[oldest.eventID] = nil
                dropped.answers += 1
            }
            let cutoff = time - Milliseconds(settings.idempotencyTTLSeconds) * 1000
            if answersStored % 64 == 0 { removeAnswers(olderThan: cutoff) }
        }
        return dropped
    }
}

/// What turns a state back into the one of the revision before it. An event usually
/// changes one key, so most undos are that key's old value, held inline in the history's
/// ring: no allocation, and nothing else to free when it leaves the ring. Keeping whole
/// past states instead made each event free a state last touched thousands of events
/// earlier, memory long out of the caches, so that keeping more revisions made every event
/// dearer; with undos the cost does not depend on `--keep-revisions`
/// (`PAIRS_A="--keep-revisions 1" PAIRS_B="--keep-revisions 100" Scripts/bench-pairs`).
enum StateUndo {
    /// The key's value before the revision; `nil` when the key was absent.
    case key(String, StateValue?)
    /// All values before the revision, when it changed more or fewer keys than one.
    case values([String: StateValue])
    /// The whole state before a revision that changed the client's context or the form
    /// marks (rare: boxed,
    /// so that the common cases stay small in the ring).
    indirect case whole(SessionState)

    /// The undo of going from `previous` to `next` (whose revision is one more), given the
    /// keys whose values differ when they are known.
    init(from next: SessionState, to previous: SessionState, changedKeys: [String]?) {
        guard next.client == previous.client, next.marks == previous.marks else {
            self = .whole(previous)
            return
        }
        var changed: String?
        var count = 0
        if let changedKeys {
            (changed, count) = (changedKeys.first, changedKeys.count)
        } else {
            next.forEachChangedKey(since: previous) { key in
                count += 1
                changed = key
            }
        }
        if count == 1, let changed {
            self = .key(changed, previous.values[changed])
        } else {
            self = .values(previous.values)
        }
    }

    /// What the undo holds, measured as the state limits measure a state.
    var bytes: Int {
        switch self {
        case .key(let key, let value?): 2 + StateLimits.measuredBytes(key: key, value: value)
        case .key(let key, nil): key.utf8.count + 4
        case .values(let values): StateLimits.measuredBytes(SessionState(values: values))
        case .whole(let previous): StateLimits.measuredBytes(previous) + previous.client.json.canonicalBytes.count
        }
    }

    func apply(to state: inout SessionState) {
        switch self {
        case .key(let key, let value): state.values[key] = value
        case .values(let values): state.values = values
        case .whole(let previous):
            state = previous
            return
        }
        state.revision -= 1
    }
}

/// An event id as its UTF-8 bytes, the way the SQLite and PostgreSQL stores compare ids.
/// `String`'s equality would take canonically equivalent ids, such as "café" composed and
/// decomposed, for one, and replay one client's answer for another's event.
private struct EventIDBytes: Hashable {
    let utf8: [UInt8]

    init(_ eventID: String) {
        utf8 = Array(eventID.utf8)
    }
}
