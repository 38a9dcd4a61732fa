import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// One client's stream of a screen (`GET /v1/screens/{id}/stream`): what it has been sent,
/// and the one event waiting to be sent. A new change replaces an event not yet sent with
/// one from the client's copy, so a slow reader costs one event, never a queue.
///
/// The server takes bytes from it on the connection's thread (``nextChunk()``); the
/// ``StreamHub`` offers changes from its own thread and wakes the connection.
final class ScreenStream: StreamSource, Sendable {
    /// The screen's id; its definition can change with a reload of the catalogue.
    let screenID: String
    /// On an item screen, the item it shows: the stream ends when the item leaves its list.
    let item: String?
    let session: SessionKey
    /// The heartbeat tick at which the stream was opened, to find streams whose response
    /// was never sent (a shutdown answered the request first).
    let openedAtTick: Int

    private struct State {
        /// The definition the stream renders the screen with: the catalogue's current one,
        /// as the hub's deliverer last saw it.
        var definition: ScreenDefinition
        /// What the client holds once it has read every byte handed to the server.
        var copy: ScreenCopy?
        /// The change from ``copy`` to its `copy`, not handed to the server yet.
        var pending: (bytes: [UInt8], copy: ScreenCopy)?
        /// The newest state offered (its definition and revision), whether it changed the
        /// screen or not: commits delivered out of order never take the client back.
        var offered: (definitionID: String, revision: Int)?
        /// Sent before anything else: the reconnect delay and the first event.
        var opening: [UInt8] = []
        var heartbeatDue = false
        /// The session is gone, or the screen: `event: gone` with this reason is sent next,
        /// then the stream ends.
        var gone: EndReason?
        var goneSent = false
        var started = false
        var closed = false
        /// The hub let go of the stream before its response was sent: it ends at once.
        var abandoned = false
        /// Weak: libmicrohttpd's response keeps the server's side alive while it is sent,
        /// and a response that is never sent must not keep the two alive.
        weak var server: ServerStream?
        var onClose: (@Sendable (ScreenStream) -> Void)?
    }

    private let state: Locked<State>

    /// Why a stream ends with `event: gone`.
    enum EndReason: Sendable {
        /// The session was deleted or expired.
        case sessionEnded
        /// A reload of the catalogue removed the screen.
        case screenRemoved
        /// The item an item screen shows left its list.
        case itemRemoved
    }

    init(definition: ScreenDefinition, item: String? = nil, session: SessionKey, tick: Int) {
        screenID = definition.id
        self.item = item
        self.session = session
        openedAtTick = tick
        state = Locked(State(definition: definition))
    }

    /// The definition the stream renders the screen with.
    var definition: ScreenDefinition { state.withLock { $0.definition } }

    /// Renders the screen with `definition` from now on: a reload replaced it.
    func adopt(_ definition: ScreenDefinition) {
        state.withLock { $0.definition = definition }
    }

    /// Sets what the stream starts with: `opening` (the reconnect delay and the first event,
    /// if any) takes the client to `copy`, which shows the session's state at `current`.
    /// Called once, before the response is sent.
    func start(
        opening: [UInt8], copy: ScreenCopy, current: ScreenCopy, server: ServerStream, onClose: @escaping @Sendable (ScreenStream) -> Void
    ) {
        state.withLock { state in
            state.opening = opening
            state.copy = copy
            state.offered = (current.definitionID, current.revision)
            state.server = server
            state.onClose = onClose
        }
    }

    /// Whether the stream was offered a state newer than `revision`.
    func wasOffered(after revision: Int) -> Bool {
        state.withLock { ($0.offered?.revision ?? Int.min) > revision }
    }

    /// Whether `target` is newer than every state offered so far.
    func wants(_ target: ScreenCopy) -> Bool {
        state.withLock { Self.isNew(target, after: $0.offered) }
    }

    private static func isNew(_ target: ScreenCopy, after offered: (definitionID: String, revision: Int)?) -> Bool {
        guard let offered else { return false }
        return target.revision > offered.revision || (target.revision == offered.revision && target.definitionID != offered.definitionID)
    }

    /// The hub let the stream go before it started: if it starts after all, it ends at once.
    func abandon() {
        state.withLock { $0.abandoned = true }
        wake()
    }

    /// What the client holds once it read everything handed to the server; `nil` before
    /// the stream started.
    var copy: ScreenCopy? { state.withLock { $0.copy } }

    /// The revision the waiting event takes the client to, if one waits.
    var waitingRevision: Int? { state.withLock { $0.pending?.copy.revision } }

    /// Whether the server ever asked for bytes (the response was sent), and whether it closed.
    var status: (started: Bool, closed: Bool) { state.withLock { ($0.started, $0.closed) } }

    /// Offers `target`, reached from `base` by the event `bytes` (empty when nothing
    /// changed for this screen). Returns `false` when the client's copy is no longer `base`
    /// (the server took the waiting event meanwhile): the caller computes again from ``copy``.
    func offer(_ bytes: [UInt8], from base: ScreenCopy, to target: ScreenCopy) -> Bool {
        let wake = state.withLock { state -> Bool? in
            guard !state.closed, state.gone == nil, let copy = state.copy, Self.isNew(target, after: state.offered) else { return false }
            guard copy.isSame(as: base) else { return nil }
            state.offered = (target.definitionID, target.revision)
            state.pending = bytes.isEmpty ? nil : (bytes, target)
            return !bytes.isEmpty
        }
        guard let wake else { return false }
        if wake { self.wake() }
        return true
    }

    /// Sends a heartbeat unless something else goes out first.
    func heartbeat() {
        state.withLock { $0.heartbeatDue = true }
        wake()
    }

    /// The session was deleted or expired, or the screen removed: `event: gone`, then the
    /// end of the stream.
    func end(_ reason: EndReason = .sessionEnded) {
        state.withLock { $0.gone = reason }
        wake()
    }

    private func wake() {
        state.withLock { $0.server }?.wake()
    }

    // MARK: StreamSource

    func nextChunk() -> StreamChunk {
        state.withLock { state in
            guard !state.abandoned else { return .end }
            state.started = true
            var bytes = state.opening
            state.opening = []
            if let reason = state.gone {
                guard !state.goneSent else { return .end }
                state.goneSent = true
                state.pending = nil
                let id = state.copy?.eventID ?? ""
                bytes.append(contentsOf: EventStreamFrames.event("gone", id: id, data: Self.goneData(reason, screen: screenID, item: item)))
                return .bytes(bytes)
            }
            if let pending = state.pending {
                state.copy = pending.copy
                state.pending = nil
                bytes.append(contentsOf: pending.bytes)
            }
            if state.heartbeatDue {
                state.heartbeatDue = false
                if bytes.isEmpty { bytes = EventStreamFrames.heartbeat }
            }
            return bytes.isEmpty ? .wait : .bytes(bytes)
        }
    }

    func streamClosed() {
        let onClose = state.withLock { state in
            state.closed = true
            state.server = nil
            state.pending = nil
            return state.onClose.take()
        }
        onClose?(self)
    }

    private static func goneData(_ reason: EndReason, screen: String, item: String?) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        switch reason {
        case .sessionEnded:
            writer.key("detail"); writer.string("the session was deleted or expired; create a new one with POST /v1/sessions")
            writer.key("reason"); writer.string("session-ended")
        case .screenRemoved:
            writer.key("detail")
            writer.string("the screen \"\(screen)\" is no longer served (the definitions were reloaded without it); GET /v1/screens lists the screens")
            writer.key("reason"); writer.string("screen-removed")
        case .itemRemoved:
            writer.key("detail")
            writer.string("the item \"\(item ?? "")\" that the screen \"\(screen)\" shows was removed from its list; go back to the screen that listed it")
            writer.key("reason"); writer.string("item-removed")
        }
        writer.endObject()
        return writer.bytes
    }
}
