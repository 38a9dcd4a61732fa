import HTTPTypes
import TabulaCore
import TabulaHTTP

/// A rendered screen with its prepared answer: what `GET /v1/screens/{id}` sends, and the
/// "old screen" of the next event's diff.
struct RenderedScreen: Sendable {
    let revision: Int
    let screen: Screen
    let etag: String
    let response: PreparedResponse?
    let bytes: [UInt8]
}

/// Rendered screens by session, screen and revision. What a session shows at a revision
/// never changes, so entries never go stale; the cache is bounded by dropping a share of
/// entries when full. Screens at the default state (no session) are rendered once.
final class ScreenCache: Sendable {
    private let defaults: [String: RenderedScreen]
    private let entries = ShardedDictionary<Key, RenderedScreen>(shards: 16)

    /// A session's screen; hashes two strings instead of building one.
    private struct Key: Hashable {
        let session: String
        let screen: String
    }
    private let maxEntries: Int

    init(catalogue: Catalogue, maxEntries: Int) {
        self.maxEntries = maxEntries
        var defaults: [String: RenderedScreen] = [:]
        for definition in catalogue.screens {
            defaults[definition.id] = Self.render(definition, catalogue.initialState)
        }
        self.defaults = defaults
    }

    /// The screen at the catalogue's default state (revision 0).
    func defaultScreen(_ definition: ScreenDefinition, _ state: SessionState) -> RenderedScreen {
        defaults[definition.id] ?? Self.render(definition, state)
    }

    /// The screen of a session at a state, rendered once per revision.
    func screen(session token: String, _ definition: ScreenDefinition, _ state: SessionState) -> RenderedScreen {
        let key = Key(session: token, screen: definition.id)
        if let cached = entries[key], cached.revision == state.revision { return cached }
        let rendered = Self.render(definition, state)
        let perShard = max(1, maxEntries / 16)
        entries.withShard(of: key) { shard in
            if shard.count >= perShard {
                for key in shard.keys.prefix(max(1, perShard / 8)) { shard[key] = nil }
            }
            shard[key] = rendered
        }
        return rendered
    }

    /// A rendered screen at a revision, if it is the one cached (for diffs of events).
    func cached(session token: String, screen id: String, revision: Int) -> Screen? {
        guard let cached = entries[Key(session: token, screen: id)], cached.revision == revision else { return nil }
        return cached.screen
    }

    static func render(_ definition: ScreenDefinition, _ state: SessionState) -> RenderedScreen {
        let screen = TabulaCore.render(definition, state)
        let bytes = screen.jsonBytes
        let etag = ETag.of(bytes)
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.eTag] = etag
        fields[.cacheControl] = "no-cache"
        fields[.vary] = "X-Session"
        return RenderedScreen(
            revision: state.revision, screen: screen, etag: etag,
            response: PreparedResponse(status: .ok, headerFields: fields, body: bytes), bytes: bytes)
    }
}
