import TabulaHTTP
import TabulaPlatform

/// What each server thread remembers of the session screens it answered: the rendered
/// screen and the watch that says whether it is still the session's current one. A `GET`
/// that finds its screen here writes no memory that other threads use: the store's and
/// the screen cache's locks, and the reference counts of the session's state, screen and
/// response, were each written by every thread that served the session (a cache line
/// moved between cores per write, the largest user-space cost of a `GET` in `perf`).
///
/// Bounded per thread: when a thread's share is full, an eighth of it is dropped. An entry
/// whose session moved on or ended is replaced or dropped the next time its thread looks
/// it up, so stale screens are held at most until then or until their thread fills up.
final class ThreadScreenCache: Sendable {
    /// A session's screen, by the screen's position in the catalogue.
    struct Key: Hashable {
        let session: SessionKey
        let screen: Int

        func hash(into hasher: inout Hasher) {
            hasher.combine(session.hash &+ screen)
        }

        func _rawHashValue(seed: Int) -> Int {
            seededHash(session.hash &+ screen, seed: seed)
        }
    }

    /// A screen a thread answered, at the revision its watch vouched for then. The thread's
    /// own object: a quick answer keeps it alive, and through it the shared screen.
    final class Entry: Sendable {
        /// Kept alive by the entry; used through the two below.
        private let watch: SessionWatch
        private let rendered: RenderedScreen
        /// The two above, reached without a retain: they are shared by every thread that
        /// serves the session, and each retain or release would write their cache lines.
        private let sharedWatch: Unretained<SessionWatch>
        private let sharedScreen: Unretained<RenderedScreen>
        /// The screen's revision, copied: the check on every `GET` then reads the entry and
        /// the watch, not the shared screen as well.
        private let revision: Int

        init(watch: SessionWatch, rendered: RenderedScreen) {
            self.watch = watch
            self.rendered = rendered
            sharedWatch = Unretained(watch)
            sharedScreen = Unretained(rendered)
            revision = rendered.revision
        }

        /// Whether the session's current revision is still the screen's.
        var isCurrent: Bool { sharedWatch.with { $0.revision } == revision }

        /// Counts the read as use of the session.
        func touch(_ session: SessionKey, in store: any SessionStore) {
            sharedWatch.with { store.touch(session: session, watch: $0) }
        }

        /// The screen's answer as a response, for the routed GET.
        func response(ifNoneMatch tags: String?) -> Response {
            sharedScreen.with { $0.response(ifNoneMatch: tags) }
        }

        /// The screen's 200, or its 304 for a client that has it, answered on this entry's
        /// behalf: the answer retains the entry, not the response.
        func answer(ifNoneMatch tags: String?, route: String, logContext: String?) -> QuickAnswer? {
            sharedScreen.with { rendered in
                rendered.withPrepared(ifNoneMatch: tags) { prepared in
                    QuickAnswer(response: prepared, keptAliveBy: self, route: route, logContext: logContext)
                }
            }
        }
    }

    private let shards = ShardedStorage<[Key: Entry]>(perThread: { [:] })
    private let maxEntriesPerThread: Int

    init(maxEntriesPerThread: Int) {
        self.maxEntriesPerThread = max(8, maxEntriesPerThread)
    }

    /// The calling thread's entry for the screen if it is still current; a stale one is dropped.
    func current(_ key: Key) -> Entry? {
        shards.withThreadShard { entries -> Entry? in
            guard let entry = entries[key] else { return nil }
            if entry.isCurrent { return entry }
            entries[key] = nil
            return nil
        }
    }

    /// Remembers a screen for the calling thread.
    func remember(_ entry: Entry, at key: Key) {
        let limit = maxEntriesPerThread
        shards.withThreadShard { entries in
            if entries[key] == nil && entries.count >= limit {
                for key in Array(entries.keys.prefix(limit / 8)) { entries[key] = nil }
            }
            entries[key] = entry
        }
    }
}
