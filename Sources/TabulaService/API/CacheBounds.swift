/// How much a cache of rendered screens may hold: entries, and bytes of the screens' JSON.
struct CacheBounds: Sendable {
    var entries: Int
    var bytes: Int

    /// What each server thread's cache of answers (``ResponseCache``) may hold: a sixteenth,
    /// so that a few server threads together hold a share of the screen cache's bounds, not
    /// a multiple of them.
    var perThread: CacheBounds { CacheBounds(entries: entries / 16, bytes: bytes / 16) }
}
