import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// The deliverer's thread: batches of commits, each session's new state rendered once and
/// offered to its streams.
extension StreamHub {
    /// The shortest time between two batches of deliveries. Each batch resumes streams,
    /// and libmicrohttpd (0.9.75) walks every suspended connection of a server thread once
    /// per loop of that thread in which some were resumed: with thousands of idle streams,
    /// that walk is most of what a delivery costs, and batches that come closer together
    /// than this share it. A commit that comes after a quiet spell is delivered at once.
    /// `Scripts/bench-live` measures what it costs and what it buys.
    static let batchInterval: Int64 = 4_000_000

    func runDeliverer() {
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

    func run(_ batch: [Job]) {
        if let reloaded = reloadedCatalogue.withLock({ $0.take() }) {
            catalogue = reloaded
            // Each session read again is delivered with the new definitions.
            recheckAll()
        }
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
            case .reload:
                break  // taken above
            }
        }
        for key in order {
            guard let (channel, state) = newest[key] else { continue }
            deliver(state, to: channel)
        }
    }

    /// Ends the streams of a session that is gone, and lets them go: they no longer count.
    func end(_ channel: Channel) {
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
    func deliver(_ state: SessionState, to channel: Channel) {
        let streams = channels.withLock { _ in
            channel.knownRevision = max(channel.knownRevision, state.revision)
            return Array(channel.streams.values)
        }
        // A reload came during this batch: a stream among these may have opened with the
        // new definitions, and rendering with this batch's would take it back. The next
        // batch takes the new catalogue and reads every streamed session again.
        guard reloadedCatalogue.withLock({ $0 == nil }) else { return }
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
            // A state older than the stream's copy (a re-read that finished after a commit)
            // says nothing of the item the stream was opened on since.
            if definition.item != nil, !stream.wasOffered(after: state.revision),
                definition.item(stream.item, in: definition.conformed(state)) == nil
            {
                unregister(stream)
                stream.end(.itemRemoved)
                continue
            }
            let target: ScreenCopy
            let name = ScreenCache.name(definition.id, item: stream.item)
            if let known = targets[name] {
                target = known
            } else {
                let screen =
                    cache.screenForDiff(session: channel.key, definition, revision: state.revision, item: stream.item)
                    ?? render(definition, state, item: stream.item)
                target = ScreenCopy(definitionID: definition.definitionID, revision: state.revision, screen: screen)
                targets[name] = target
            }
            // A copy changes only when the server takes the waiting event; a few attempts
            // always suffice, since each finds no waiting event left to take.
            for _ in 0..<4 {
                guard stream.wants(target), let base = stream.copy else { break }
                let event = events.event(definition, item: stream.item, from: base, to: target)
                if stream.offer(event, from: base, to: target) { break }
            }
        }
    }

    /// The events of one delivery, each computed once per screen and client copy.
    struct EventCache {
        struct Key: Hashable {
            let screen: String
            let item: String?
            let definitionID: String
            let revision: Int
        }

        var events: [Key: [UInt8]] = [:]

        /// `event: changes` from `base` to `target`, for a stream opened on `item`; empty when
        /// the screen did not change. Keyed by the stream's item, not the screen's: a reload
        /// that made an item screen a plain one renders no item, while each stream's copy
        /// still shows its own.
        mutating func event(_ definition: ScreenDefinition, item: String?, from base: ScreenCopy, to target: ScreenCopy) -> [UInt8] {
            let key = Key(screen: definition.id, item: item, definitionID: base.definitionID, revision: base.revision)
            if let known = events[key] { return known }
            let changes = diff(old: base.screen, new: target.screen)
            let event =
                changes.isEmpty
                ? []
                : EventStreamFrames.event(
                    "changes", id: target.eventID,
                    data: AnswerBody.encode(definition, item: target.screen.item, from: base.revision, to: target.revision, changes: changes))
            events[key] = event
            return event
        }
    }
}
