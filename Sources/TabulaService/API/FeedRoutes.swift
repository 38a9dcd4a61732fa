import HTTPTypes
import TabulaCore
import TabulaHTTP

/// `GET /v1/feed?after=CURSOR&limit=N`: the committed changes of every session, oldest
/// first, for the app's backend; and `GET /v1/feed/stream`, the same pushed as they come.
extension APIContext {
    static let defaultFeedLimit = 100
    static let maxFeedLimit = 1_000

    func readFeed(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        try access.requireBackend(context.request)
        let after = try Self.feedCursor(context.request)
        let limit = try Self.feedLimit(context.request)
        return .later { [self] reply in
            readFeedPage(after: after, limit: limit, reply) { entries, next in
                reply(Response(status: .ok, headerFields: JSONResponse.headers(), body: Self.encode(entries, next: next)))
            }
        }
    }

    /// Reads a page of the feed for a request: a store that cannot be reached is 503, a
    /// cursor beyond retention 410; `body` answers with the entries.
    private func readFeedPage(
        after: FeedCursor?, limit: Int, _ reply: Reply, _ body: @escaping @Sendable ([FeedEntry], FeedCursor) -> Void
    ) {
        store.readFeed(after: after, limit: limit) { result in
            switch result {
            case .failure(let error): reply.fail(.store(error))
            case .success(.expired(let oldest)): reply.fail(.feedExpired(oldest: oldest.description))
            case .success(.entries(let entries, let next)): body(entries, next)
            }
        }
    }

    /// `GET /v1/feed/stream`: the feed's entries as Server-Sent Events (`event: entry`,
    /// `id: CURSOR`), from `Last-Event-ID` (or `?after=`), then each new one as it commits.
    /// A cursor beyond retention is 410 `feed-expired`, before the stream starts.
    func streamFeed(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        try access.requireBackend(context.request)
        let after = try Self.feedStreamCursor(context.request)
        try streams.requireRoom()
        return .later { [self] reply in
            readFeedPage(after: after, limit: FeedStream.pageSize, reply) { [self] entries, next in
                var opening = EventStreamFrames.opening
                for entry in entries { opening += FeedStream.event(entry) }
                let stream = FeedStream(after: next, opening: opening, wantsRead: entries.count == FeedStream.pageSize, tick: streams.currentTick)
                do throws(Problem) {
                    try streams.register(stream)
                } catch {
                    return reply.fail(error)
                }
                let server = ServerStream(source: stream)
                stream.start(server: server, requestRead: { [streams] in streams.read($0) }, onClose: { [streams] in streams.unregister($0) })
                reply(Response(status: .ok, headerFields: Self.streamHeaders, stream: server))
                // Entries committed between the read and the registration.
                stream.feedChanged()
            }
        }
    }

    /// Where a feed stream starts: `Last-Event-ID` (EventSource sends the last id it got
    /// when it reconnects), else `?after=`, else the oldest entry kept.
    static func feedStreamCursor(_ request: Request) throws(Problem) -> FeedCursor? {
        if let lastEventID = request.headers.value("Last-Event-ID") {
            guard let cursor = FeedCursor(lastEventID) else {
                throw Problem.invalidHeader("Last-Event-ID", "must be the id of an entry the feed's stream sent (a cursor)")
            }
            return cursor
        }
        return try feedCursor(request)
    }

    /// `after`: optional, a cursor a feed answer gave.
    static func feedCursor(_ request: Request) throws(Problem) -> FeedCursor? {
        let problem = Problem.invalidQuery("after must be a cursor the feed gave (an entry's \"cursor\" or the answer's \"next\")")
        switch try queryParameter("after", of: request) {
        case .absent:
            return nil
        case .present(let text?):
            guard let cursor = FeedCursor(text) else { throw problem }
            return cursor
        case .present(nil), .malformed:
            throw problem
        }
    }

    /// `limit`: optional, 1 to ``maxFeedLimit``.
    static func feedLimit(_ request: Request) throws(Problem) -> Int {
        let problem = Problem.invalidQuery("limit must be a whole number from 1 to \(maxFeedLimit)")
        switch try queryParameter("limit", of: request) {
        case .absent:
            return defaultFeedLimit
        case .present(let text?):
            guard let limit = wholeNumber(text), (1...maxFeedLimit).contains(limit) else { throw problem }
            return limit
        case .present(nil), .malformed:
            throw problem
        }
    }

    /// `{"entries": [...], "next": CURSOR}`, each entry
    /// `{"at", "cause", "changedKeys", "cursor", "event", "revision", "session", "subject"}`.
    static func encode(_ entries: [FeedEntry], next: FeedCursor) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64 + entries.count * 320)
        writer.beginObject()
        writer.key("entries")
        writer.array(entries) { writer, entry in write(entry, to: &writer) }
        writer.key("next"); writer.string(next.description)
        writer.endObject()
        return writer.bytes
    }

    /// One entry alone, as the feed's stream sends it.
    static func encode(_ entry: FeedEntry) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 320)
        write(entry, to: &writer)
        return writer.bytes
    }

    private static func write(_ entry: FeedEntry, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("at"); writer.string(RFC3339.text(entry.time))
        writer.key("cause"); writer.string(entry.record.cause.rawValue)
        writer.key("changedKeys"); writer.rawValue(entry.record.changedKeys)
        writer.key("cursor"); writer.string(entry.cursor.description)
        writer.key("event")
        if let event = entry.record.event { writer.rawValue(event) } else { writer.null() }
        if let item = entry.record.item {
            writer.key("item"); writer.string(item)
        }
        writer.key("revision"); writer.int(entry.revision)
        writer.key("session"); writer.string(entry.sessionID)
        writer.key("subject")
        if let subject = entry.subject { writer.string(subject) } else { writer.null() }
        writer.endObject()
    }
}
