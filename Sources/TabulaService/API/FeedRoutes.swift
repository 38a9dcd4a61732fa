import HTTPTypes
import TabulaCore
import TabulaHTTP

/// `GET /v1/feed?after=CURSOR&limit=N`: the committed changes of every session, oldest
/// first, for the app's backend.
extension APIContext {
    static let defaultFeedLimit = 100
    static let maxFeedLimit = 1_000

    func readFeed(_ context: RouteContext, _ responder: Responder) {
        let after: FeedCursor?
        let limit: Int
        do throws(Problem) {
            try access.requireBackend(context.request)
            after = try Self.feedCursor(context.request)
            limit = try Self.feedLimit(context.request)
        } catch {
            return send(error.response(), context, responder)
        }
        store.readFeed(after: after, limit: limit) { [self] result in
            switch result {
            case .failure(let error):
                send(Problem.storeUnavailable(error).response(), context, responder)
            case .success(.expired(let oldest)):
                send(Problem.feedExpired(oldest: oldest.description).response(), context, responder)
            case .success(.entries(let entries, let next)):
                send(Response(status: .ok, headerFields: JSONResponse.headers(), body: Self.encode(entries, next: next)), context, responder)
            }
        }
    }

    /// `after`: optional, a cursor a feed answer gave.
    static func feedCursor(_ request: Request) throws(Problem) -> FeedCursor? {
        let problem = Problem.invalidQuery("after must be a cursor the feed gave (an entry's \"cursor\" or the answer's \"next\")")
        switch request.queryValue("after") {
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
        switch request.queryValue("limit") {
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
        writer.array(entries) { writer, entry in
            writer.beginObject()
            writer.key("at"); writer.string(RFC3339.text(entry.time))
            writer.key("cause"); writer.string(entry.record.cause.rawValue)
            writer.key("changedKeys"); writer.rawValue(entry.record.changedKeys)
            writer.key("cursor"); writer.string(entry.cursor.description)
            writer.key("event")
            if let event = entry.record.event { writer.rawValue(event) } else { writer.null() }
            writer.key("revision"); writer.int(entry.revision)
            writer.key("session"); writer.string(entry.sessionID)
            writer.key("subject")
            if let subject = entry.subject { writer.string(subject) } else { writer.null() }
            writer.endObject()
        }
        writer.key("next"); writer.string(next.description)
        writer.endObject()
        return writer.bytes
    }
}
