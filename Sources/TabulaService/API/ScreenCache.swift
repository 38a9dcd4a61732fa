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

/// Rendered screens by session, screen and revision. What a session shows at a revision
/// by a definition never changes, so entries never go stale (each is checked against the
/// definition asked for: a reload can change it); the cache is bounded by dropping a share
/// of entries when full. Screens at the default state are the ``ServedCatalogue``'s.
///
/// Two levels: the screen itself, which every event leaves behind for the next event's
/// diff, and its prepared answer (encoded bytes, ETag), made on the first GET.
final class ScreenCache: Sendable {
    private let entries = ShardedDictionary<Key, RenderedScreen>(shards: 16)
    private let screens = ShardedDictionary<Key, (revision: Int, screen: Screen)>(shards: 16)

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
    private let maxEntries: Int

    init(maxEntries: Int) {
        self.maxEntries = maxEntries
    }

    /// The screen of a session at a state with its prepared answer, rendered on the first ask
    /// at each revision (from the screen an event left, when there is one).
    func renderedScreen(session: SessionKey, _ definition: ScreenDefinition, _ state: SessionState) -> RenderedScreen {
        if let cached = renderedScreenIfCached(session: session, definition, revision: state.revision) { return cached }
        let key = Key(session: session, screen: definition.id)
        let known = screens[key].flatMap { Self.isOf(definition, $0.screen, at: state.revision) ? $0.screen : nil }
        let rendered = Self.prepare(known ?? TabulaCore.render(definition, state))
        store(rendered, at: key, in: entries)
        return rendered
    }

    /// The screen of a session at a revision with its prepared answer, if it is made already.
    func renderedScreenIfCached(session: SessionKey, _ definition: ScreenDefinition, revision: Int) -> RenderedScreen? {
        guard let cached = entries[Key(session: session, screen: definition.id)], Self.isOf(definition, cached.screen, at: revision) else {
            return nil
        }
        return cached
    }

    /// The screen a session showed at a revision by a definition, if it is cached: the old
    /// screen of an event's diff, which then need not render it again.
    func screenForDiff(session: SessionKey, _ definition: ScreenDefinition, revision: Int) -> Screen? {
        let key = Key(session: session, screen: definition.id)
        if let cached = screens[key], Self.isOf(definition, cached.screen, at: revision) { return cached.screen }
        if let cached = entries[key], Self.isOf(definition, cached.screen, at: revision) { return cached.screen }
        return nil
    }

    /// Keeps a screen an event rendered, for the next event's diff.
    func keepForDiff(session: SessionKey, screen: Screen) {
        store((screen.revision, screen), at: Key(session: session, screen: screen.id), in: screens)
    }

    /// Whether `screen` is what `definition` renders at `revision`.
    private static func isOf(_ definition: ScreenDefinition, _ screen: Screen, at revision: Int) -> Bool {
        screen.revision == revision && screen.definition == definition.definitionID
    }

    private func store<Value>(_ value: Value, at key: Key, in map: ShardedDictionary<Key, Value>) {
        let perShard = max(1, maxEntries / 16)
        map.withShard(of: key) { shard in
            if shard.count >= perShard {
                for key in shard.keys.prefix(max(1, perShard / 8)) { shard[key] = nil }
            }
            shard[key] = value
        }
    }

    static func render(_ definition: ScreenDefinition, _ state: SessionState) -> RenderedScreen {
        prepare(TabulaCore.render(definition, state))
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
