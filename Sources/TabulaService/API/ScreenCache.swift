import HTTPTypes
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// A rendered screen with its prepared answer: what `GET /v1/screens/{id}` sends, and the
/// "old screen" of the next event's diff. A class: it is passed around on every GET.
final class RenderedScreen: Sendable {
    let revision: Int
    let screen: Screen
    let etag: String
    let response: PreparedResponse?
    /// The 304 for a client that already has these bytes.
    let notModified: PreparedResponse?
    let bytes: [UInt8]

    init(revision: Int, screen: Screen, etag: String, response: PreparedResponse?, notModified: PreparedResponse?, bytes: [UInt8]) {
        self.revision = revision
        self.screen = screen
        self.etag = etag
        self.response = response
        self.notModified = notModified
        self.bytes = bytes
    }

    /// The prepared answer for a client whose If-None-Match header is `tags`: the 304 when
    /// a tag matches, else the 200; `nil` only if libmicrohttpd could not allocate it.
    func prepared(ifNoneMatch tags: String?) -> PreparedResponse? {
        withPrepared(ifNoneMatch: tags) { $0 }
    }

    /// The answer for a client whose If-None-Match header is `tags`, as a response: the
    /// prepared one, or (should libmicrohttpd not have allocated it) the same built anew.
    func response(ifNoneMatch tags: String?) -> Response {
        if let prepared = prepared(ifNoneMatch: tags) { return Response(prepared) }
        if let tags, ETag.matches(tags, etag) {
            return Response(status: .notModified, headerFields: ScreenCache.notModifiedFields(etag))
        }
        return Response(status: .ok, headerFields: ScreenCache.okFields(etag), body: bytes)
    }

    /// ``prepared(ifNoneMatch:)`` lent to `body`, for callers that must not retain it.
    func withPrepared<Result>(ifNoneMatch tags: String?, _ body: (PreparedResponse) -> Result?) -> Result? {
        let chosen = if let tags, ETag.matches(tags, etag) { notModified } else { response }
        guard let chosen else { return nil }
        return body(chosen)
    }
}

/// Each session's screens at the session's latest revision the service saw: the screen an
/// event left behind for the next event's diff, and its prepared answer (encoded bytes,
/// ETag) once a `GET` or a stream asked for it. One entry per session and screen (and
/// item, on an item screen), replaced
/// by a newer revision's (a commit's, or a read's), never by an older one. What a session
/// shows at a revision by a definition never changes, so an entry is only ever out of date,
/// never wrong: each use checks its revision and definition (a reload can change it).
/// Bounded by entries and by bytes (``BoundedDictionary``: a screen counts as its JSON, or,
/// before it was encoded, as ``estimatedBytesPerRow`` a row), by dropping a share of entries
/// when full; a removed session's entries go that way too (no request can reach them: its
/// token is unknown to the store). Screens at the default state are the
/// ``ServedCatalogue``'s, and each thread's repeated `GET`s the ``ResponseCache``'s.
final class ScreenCache: Sendable {
    private static let shardCount = 16
    private let shards: ShardedStorage<BoundedDictionary<Key, Entry>>

    /// A session's screen. Hashes the session's cheap hash only: a session has few screens.
    private struct Key: ShardKey {
        let session: SessionKey
        let screen: String

        init(session: SessionKey, screen: String) {
            self.session = session
            self.screen = screen
        }

        var shardHash: Int { session.shardHash }

        func hash(into hasher: inout Hasher) {
            hasher.combine(session.hash)
        }

        func _rawHashValue(seed: Int) -> Int {
            seededHash(session.hash, seed: seed)
        }
    }

    /// A screen, with its prepared answer once one was asked for. A class: the dictionary
    /// holds one reference, and a lookup copies no screen.
    private final class Entry: Sendable {
        let screen: Screen
        let rendered: RenderedScreen?

        /// What the entry counts as against the cache's bytes.
        let bytes: Int

        init(_ screen: Screen) {
            self.screen = screen
            rendered = nil
            bytes = screen.sections.reduce(0) { $0 + $1.rows.count } * ScreenCache.estimatedBytesPerRow
        }

        init(_ rendered: RenderedScreen) {
            screen = rendered.screen
            self.rendered = rendered
            bytes = rendered.bytes.count
        }

        /// Whether this is what `definition` renders at `revision`.
        func isOf(_ definition: ScreenDefinition, at revision: Int) -> Bool {
            screen.revision == revision && screen.definition == definition.definitionID
        }
    }

    /// What a row of a screen not encoded yet counts as: about what a row of the bundled
    /// screens takes as JSON, or more.
    static let estimatedBytesPerRow = 512

    /// Counts the screens dropped to keep the bounds.
    private let limitCounts: LimitCounts

    init(_ bounds: CacheBounds, limitCounts: LimitCounts) {
        let perShard = (entries: max(1, bounds.entries / Self.shardCount), bytes: bounds.bytes / Self.shardCount)
        shards = ShardedStorage(count: Self.shardCount) { BoundedDictionary(maxCount: perShard.entries, maxBytes: perShard.bytes) }
        self.limitCounts = limitCounts
    }

    /// The bytes its screens count as, in all.
    var bytes: Int {
        var total = 0
        shards.readEach { total += $0.bytes }
        return total
    }

    private func entry(_ key: Key) -> Entry? {
        shards.read(key.shardHash) { $0[key] }
    }

    /// Where an item screen's entry is kept: the screen's id and the item's (apart, since
    /// no screen id holds a control character).
    static func name(_ screen: String, item: String?) -> String {
        item.map { "\(screen)\u{1}\($0)" } ?? screen
    }

    /// The screen of a session at a state (on an item screen, showing `item`) with its
    /// prepared answer, prepared on the first ask at each revision (from the screen an
    /// event left, when there is one).
    func renderedScreen(session: SessionKey, _ definition: ScreenDefinition, _ state: SessionState, item: String? = nil) -> RenderedScreen {
        let key = Key(session: session, screen: Self.name(definition.id, item: item))
        let known = entry(key).flatMap { $0.isOf(definition, at: state.revision) ? $0 : nil }
        if let rendered = known?.rendered { return rendered }
        let rendered = Self.prepare(known?.screen ?? TabulaCore.render(definition, state, item: item))
        keep(Entry(rendered), at: key)
        return rendered
    }

    /// The screen a session showed at a revision by a definition, if it is cached: the old
    /// screen of an event's diff, which then need not render it again.
    func screenForDiff(session: SessionKey, _ definition: ScreenDefinition, revision: Int, item: String? = nil) -> Screen? {
        guard let entry = entry(Key(session: session, screen: Self.name(definition.id, item: item))), entry.isOf(definition, at: revision) else {
            return nil
        }
        return entry.screen
    }

    /// Keeps a screen an event rendered, for the next event's diff.
    func keepForDiff(session: SessionKey, screen: Screen) {
        keep(Entry(screen), at: Key(session: session, screen: Self.name(screen.id, item: screen.item)))
    }

    /// Stores `entry` unless the one there is of a later revision, or of the same one by the
    /// same definition (which keeps a prepared answer made meanwhile).
    private func keep(_ entry: Entry, at key: Key) {
        let dropped = shards.write(key.shardHash) { shard -> Int in
            // Keep what is there when it is later, or as late and already prepared.
            if let old = shard[key], old.screen.definition == entry.screen.definition,
                old.screen.revision > entry.screen.revision || (old.screen.revision == entry.screen.revision && entry.rendered == nil)
            {
                return 0
            }
            return shard.insert(entry, bytes: entry.bytes, forKey: key)
        }
        limitCounts.add(.screenCacheBytes, dropped)
    }

    static func render(_ definition: ScreenDefinition, _ state: SessionState, item: String? = nil) -> RenderedScreen {
        prepare(TabulaCore.render(definition, state, item: item))
    }

    static func prepare(_ screen: Screen) -> RenderedScreen {
        let bytes = screen.jsonBytes
        let etag = ETag.of(bytes)
        return RenderedScreen(
            revision: screen.revision, screen: screen, etag: etag,
            response: PreparedResponse(status: .ok, headerFields: okFields(etag), body: bytes),
            notModified: PreparedResponse(status: .notModified, headerFields: notModifiedFields(etag)), bytes: bytes)
    }

    /// The headers of a screen's 200.
    static func okFields(_ etag: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields.append(contentsOf: notModifiedFields(etag))
        return fields
    }

    /// The headers of a 304 for a screen with this tag.
    static func notModifiedFields(_ etag: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[.eTag] = etag
        fields[.cacheControl] = "no-cache"
        fields[.vary] = "X-Session"
        return fields
    }
}
