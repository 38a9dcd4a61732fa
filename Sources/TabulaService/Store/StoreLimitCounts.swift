import TabulaPlatform

/// The bounds on anonymous growth, and how often each took effect since the start:
/// `/metrics` shows them as `tabula_limit_reached_total{limit}`. The stores count the
/// bounds they keep; the service counts those it keeps.
public enum GrowthLimit: String, CaseIterable, Sendable {
    /// A session's oldest revision dropped to keep its history within `--max-history-bytes`.
    case historyBytes = "history_bytes"
    /// A session's oldest stored answer dropped to keep `--max-answers-per-session`.
    case eventAnswers = "event_answers"
    /// A current state dropped from the store's cache to keep `--state-cache-bytes`.
    case stateCacheBytes = "state_cache_bytes"
    /// A rendered screen, or a thread's prepared answer, dropped from memory to keep
    /// `--screen-cache-bytes` (and the caches' entry bounds).
    case screenCacheBytes = "screen_cache_bytes"
    /// A new session refused (429) for its address's `--max-new-sessions-per-minute`.
    case newSessions = "new_sessions"
    /// A client context refused (400) for more kinds than `--max-client-kinds`.
    case clientKinds = "client_kinds"
}

/// Counts of ``GrowthLimit``s taking effect, safe to bump from any thread.
public final class LimitCounts: Sendable {
    private let counts = Locked<[GrowthLimit: Int]>([:])

    public init() {}

    public func add(_ limit: GrowthLimit, _ count: Int = 1) {
        guard count > 0 else { return }
        counts.withLock { $0[limit, default: 0] += count }
    }

    public subscript(limit: GrowthLimit) -> Int {
        counts.withLock { $0[limit, default: 0] }
    }
}
