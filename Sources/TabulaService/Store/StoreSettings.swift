import TabulaPlatform

/// Retention settings every store honours.
public struct StoreSettings: Sendable {
    /// Revisions kept rebuildable per session (older ones get 409).
    public var keepRevisions = 100
    /// How long an `eventId`'s answer is kept for retries, in seconds.
    public var idempotencyTTLSeconds = 24 * 60 * 60
    /// Sessions idle longer than this are removed, in seconds.
    public var sessionTTLSeconds = 30 * 24 * 60 * 60
    /// Versions of each screen's definition kept for clients that still show them (older
    /// ones get 409 `unknown-definition`).
    public var keepDefinitions = 16
    /// Feed entries older than this are removed, in seconds; a reader asking after one of
    /// them gets 410 `feed-expired`.
    public var feedRetentionSeconds = 24 * 60 * 60
    /// The bytes of a session's history kept (its past states and their events, as
    /// stored): beyond, its oldest revisions are dropped before ``keepRevisions`` would drop
    /// them. The current state is always kept.
    public var maxHistoryBytes = 1 << 20
    /// Answers of `eventId`s kept per session, the newest; older ones are dropped before
    /// ``idempotencyTTLSeconds`` would drop them.
    public var maxAnswersPerSession = 1_000
    /// The bytes of current states a store keeps in memory in front of its database
    /// (SQLite), measured as stored.
    public var stateCacheBytes = 256 << 20

    public init() {}
}

/// Milliseconds since 1970, the stores' clock.
public typealias Milliseconds = Int64

/// The current time in milliseconds since 1970, as of the kernel's last tick: last-use and
/// answer times need no finer time, and a `GET` reads it.
public func unixMilliseconds() -> Milliseconds {
    SystemClock.coarseWallNanoseconds() / 1_000_000
}

extension StoreSettings {
    /// Where a session's history must be cut to keep ``maxHistoryBytes``, from its
    /// revisions' sizes, newest first: the oldest revision to keep (`nil` when all fit) and
    /// the bytes kept. The newest revision, the current state, is always kept.
    func historyCut(_ sizesNewestFirst: [(revision: Int64, bytes: Int64)]) -> (keepFrom: Int64?, keptBytes: Int64) {
        var kept: Int64 = 0
        for (index, entry) in sizesNewestFirst.enumerated() {
            if index > 0 && kept + entry.bytes > Int64(maxHistoryBytes) {
                return (sizesNewestFirst[index - 1].revision, kept)
            }
            kept += entry.bytes
        }
        return (nil, kept)
    }
}
