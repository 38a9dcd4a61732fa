import Synchronization
import TabulaPlatform

/// Writers of one session take turns in this process: a transaction over a session starts
/// once the one before it has answered, in the order they came. Without turns, concurrent
/// writers of one session all read the same revision and all but one lose the
/// compare-and-swap; under load a writer could lose every race and be refused. With turns,
/// a conflict is the rare case between instances (or between a client's and the backend's
/// writes, which name the session by token and by id), not the common one within one.
///
/// A waiting transaction holds no thread: its request is parked like any other. A turn
/// that ends before it returns (the memory store answers at once) hands over to the next in
/// a loop on the same thread rather than by recursion, so that a long queue cannot exhaust
/// the stack. A thread runs at most ``turnsInARow`` turns so; then the rest of the queue
/// goes on where `handOff` puts it (the service's worker pool). Otherwise the connection
/// thread that began a busy session's queue would run every writer's turn for as long as
/// writers keep coming, and its own other connections would wait: their heads unread, the
/// header timeout would close them.
final class SessionTurns: Sendable {
    /// A transaction: it calls `done` once, when it has answered.
    typealias Turn = @Sendable (_ done: @escaping @Sendable () -> Void) -> Void

    /// The sessions with a turn under way, each with the turns waiting after it.
    private let waiting = ShardedDictionary<SessionName, Queue>(shards: 16)
    /// Runs a job on another thread; `nil`: the loop goes on, however long the queue.
    private let handOff: (@Sendable (_ job: @escaping @Sendable () -> Void) -> Void)?
    /// How many turns one thread runs in a row before it hands the queue on.
    static let turnsInARow = 16

    init(handOff: (@Sendable (_ job: @escaping @Sendable () -> Void) -> Void)? = nil) {
        self.handOff = handOff
    }

    /// Runs `turn` now if the session is free, else after the turns before it.
    func take(_ name: SessionName, _ turn: @escaping Turn) {
        let free = waiting.withShard(of: name) { sessions -> Bool in
            if sessions[name] != nil {
                sessions[name, default: Queue()].append(turn)
                return false
            }
            sessions[name] = Queue()
            return true
        }
        if free { run(name, from: turn) }
    }

    /// Runs `first` and, as each turn ends, the next, until the session is free or a turn
    /// ends later on another thread (which then goes on from there).
    private func run(_ name: SessionName, from first: @escaping Turn) {
        var next: Turn? = first
        var ran = 0
        while let turn = next {
            // The session stays taken meanwhile: the queue goes on in order, elsewhere.
            if ran == Self.turnsInARow, let handOff {
                handOff { [self] in run(name, from: turn) }
                return
            }
            ran += 1
            let handover = Handover()
            turn { [self] in
                if handover.turnEnded() == .afterReturn, let following = release(name) { run(name, from: following) }
            }
            next = handover.turnReturned() == .afterEnd ? release(name) : nil
        }
    }

    /// Ends the session's current turn: the next one to run, or `nil` when none waits (the
    /// session is free then).
    private func release(_ name: SessionName) -> Turn? {
        waiting.withShard(of: name) { sessions -> Turn? in
            guard let next = sessions[name]?.removeFirst() else {
                sessions[name] = nil
                return nil
            }
            return next
        }
    }

    /// The turns waiting for one session, first come first.
    struct Queue: Sendable {
        private var turns: [Turn?] = []
        private var head = 0

        mutating func append(_ turn: @escaping Turn) {
            turns.append(turn)
        }

        /// The oldest turn, taken out; `nil` when none waits. O(1) amortized.
        mutating func removeFirst() -> Turn? {
            guard head < turns.count else { return nil }
            defer {
                turns[head] = nil
                head += 1
                if head * 2 > turns.count {
                    turns.removeFirst(head)
                    head = 0
                }
            }
            return turns[head]
        }
    }

    /// Which of a turn's two moments came second: its function returning, or its end. The
    /// side that comes second goes on to the next turn.
    private final class Handover: Sendable {
        enum Order { case first, afterReturn, afterEnd }
        private static let running = 0, returned = 1, ended = 2
        private let state = Atomic<Int>(running)

        /// The turn's function returned.
        func turnReturned() -> Order {
            state.compareExchange(expected: Self.running, desired: Self.returned, ordering: .acquiringAndReleasing).exchanged
                ? .first : .afterEnd
        }

        /// The turn called `done`.
        func turnEnded() -> Order {
            state.compareExchange(expected: Self.running, desired: Self.ended, ordering: .acquiringAndReleasing).exchanged
                ? .first : .afterReturn
        }
    }
}

extension SessionName: ShardKey {}
