import TabulaHTTP
import TabulaPlatform

/// The backend's stream of the feed (`GET /v1/feed/stream`): each entry as `event: entry`
/// with `id: CURSOR`. It reads a page of the feed after its cursor whenever the feed may
/// have grown, and the next page only once the server took the last one, so a backend that
/// reads slowly costs one page, never a queue. Reads run on the ``StreamHub``'s thread.
final class FeedStream: StreamSource, Sendable {
    /// Entries read at a time.
    static let pageSize = 100

    private struct State {
        /// Where the next read starts.
        var cursor: FeedCursor
        /// Entries read and not yet handed to the server (the opening first).
        var bytes: [UInt8] = []
        /// The feed may hold entries after ``cursor``.
        var wantsRead = false
        var reading = false
        var heartbeatDue = false
        /// The stream ends once what is read is sent: the reader fell behind retention, or
        /// the store failed.
        var ending = false
        var started = false
        var closed = false
        /// Weak, as a screen stream's (see ``ScreenStream``).
        weak var server: ServerStream?
        var onClose: (@Sendable (FeedStream) -> Void)?
        /// Queues a read on the hub's thread.
        var requestRead: (@Sendable (FeedStream) -> Void)?
    }

    private let state: Locked<State>
    let openedAtTick: Int

    init(after cursor: FeedCursor, opening: [UInt8], wantsRead: Bool, tick: Int) {
        state = Locked(State(cursor: cursor, bytes: opening, wantsRead: wantsRead))
        openedAtTick = tick
    }

    func start(
        server: ServerStream, requestRead: @escaping @Sendable (FeedStream) -> Void, onClose: @escaping @Sendable (FeedStream) -> Void
    ) {
        state.withLock { state in
            state.server = server
            state.requestRead = requestRead
            state.onClose = onClose
        }
    }

    /// Whether the server ever asked for bytes, and whether it closed.
    var status: (started: Bool, closed: Bool) { state.withLock { ($0.started, $0.closed) } }

    /// The feed may have grown: a read is queued, unless one runs or what was read waits to
    /// be sent (then it follows).
    func feedChanged() {
        let request = state.withLock { state in
            state.wantsRead = true
            return Self.claimRead(&state)
        }
        request?(self)
    }

    /// Claims the read, when one is wanted and none is running or waiting to be sent: then
    /// the function that queues it.
    private static func claimRead(_ state: inout State) -> (@Sendable (FeedStream) -> Void)? {
        guard state.wantsRead, !state.reading, state.bytes.isEmpty, !state.ending, !state.closed, let request = state.requestRead else {
            return nil
        }
        state.reading = true
        state.wantsRead = false
        return request
    }

    /// Reads the page after the cursor and queues its entries (on the hub's thread).
    func read(from store: any SessionStore) {
        let cursor = state.withLock { $0.cursor }
        store.readFeed(after: cursor, limit: Self.pageSize) { [self] result in
            let request = state.withLock { state -> (@Sendable (FeedStream) -> Void)? in
                state.reading = false
                switch result {
                case .success(.entries(let entries, let next)):
                    for entry in entries { state.bytes += Self.event(entry) }
                    state.cursor = next
                    if entries.count == Self.pageSize { state.wantsRead = true }
                case .success(.expired), .failure:
                    // A reconnect from the last id gets the reason: 410 feed-expired, or 503.
                    state.ending = true
                }
                // A change that came during the read, when this one found nothing to send.
                return Self.claimRead(&state)
            }
            wake()
            request?(self)
        }
    }

    static func event(_ entry: FeedEntry) -> [UInt8] {
        EventStreamFrames.event("entry", id: entry.cursor.description, data: APIContext.encode(entry))
    }

    func heartbeat() {
        state.withLock { $0.heartbeatDue = true }
        wake()
    }

    /// The hub could not queue the claimed read: it is wanted still.
    func readRefused() {
        state.withLock { state in
            state.reading = false
            state.wantsRead = true
        }
    }

    /// The hub let the stream go before it started: if it starts after all, it ends at once.
    func abandon() {
        state.withLock { $0.ending = true }
        wake()
    }

    private func wake() {
        state.withLock { $0.server }?.wake()
    }

    // MARK: StreamSource

    func nextChunk() -> StreamChunk {
        let (chunk, request) = state.withLock { state -> (StreamChunk, (@Sendable (FeedStream) -> Void)?) in
            state.started = true
            var bytes = state.bytes
            state.bytes = []
            if bytes.isEmpty && state.ending { return (.end, nil) }
            if state.heartbeatDue {
                state.heartbeatDue = false
                if bytes.isEmpty { bytes = EventStreamFrames.heartbeat }
            }
            // What was read is handed over: the next page may be read.
            return (bytes.isEmpty ? .wait : .bytes(bytes), Self.claimRead(&state))
        }
        request?(self)
        return chunk
    }

    func streamClosed() {
        let onClose = state.withLock { state in
            state.closed = true
            state.server = nil
            state.bytes = []
            state.requestRead = nil
            return state.onClose.take()
        }
        onClose?(self)
    }
}
