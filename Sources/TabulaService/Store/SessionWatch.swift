import Synchronization
public import TabulaCore

/// A session's current revision as its store vouches for it, read without a lock: a
/// server thread's cache of the session's screens checks it on every `GET` instead of
/// asking the store, whose locks and reference counts are written by every thread that
/// asks (each write moves a cache line between cores). Stores advance it after a state
/// is committed and before the event is answered, so a `GET` after an answer never sees
/// an older screen; they end it when they stop vouching for the session (it was removed,
/// or it left the store's memory), and an ended watch stays ended.
public final class SessionWatch: Sendable {
    /// ``revision`` of an ended watch.
    public static let ended = -1

    private let current: Atomic<Int>
    /// When a read last counted as use of the session (milliseconds since 1970), kept here
    /// so that reads from caches refresh the session's last use without asking the store.
    let lastUsed: Atomic<Milliseconds>

    init(revision: Int, lastUsed: Milliseconds) {
        current = Atomic(revision)
        self.lastUsed = Atomic(lastUsed)
    }

    /// The session's current revision, or ``ended``.
    public var revision: Int { current.load(ordering: .acquiring) }

    /// A state of this revision is committed; never moves back, nor revives an ended watch.
    func advance(to revision: Int) {
        var seen = current.load(ordering: .relaxed)
        while seen != Self.ended && seen < revision {
            let (exchanged, original) = current.compareExchange(
                expected: seen, desired: revision, successOrdering: .releasing, failureOrdering: .relaxed)
            if exchanged { return }
            seen = original
        }
    }

    /// The store no longer vouches for the session.
    func end() {
        current.store(Self.ended, ordering: .releasing)
    }

    /// Records a use at `time` when the last recorded one is at least `interval` older, and
    /// says whether it did: most reads then write nothing that other threads read.
    func touch(at time: Milliseconds, interval: Milliseconds) -> Bool {
        guard time - lastUsed.load(ordering: .relaxed) >= interval else { return false }
        lastUsed.store(time, ordering: .relaxed)
        return true
    }
}

/// A session's current state, and the watch that tells whether it is still current.
public struct WatchedState: Sendable {
    public let state: SessionState
    public let watch: SessionWatch
}
