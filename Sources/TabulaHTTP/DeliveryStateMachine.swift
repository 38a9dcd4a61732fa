import Synchronization

/// How a response reaches the connection it answers. The handler may answer before it
/// returns (on the connection's thread) or later from any thread; meanwhile the
/// connection's thread suspends the connection, so that it serves others. Both sides move
/// one atomic state, without a lock, and each move says what its side does next.
///
/// ```
///                     answer                                       (queue at once)
///   dispatching ────────────────────▶ answeredWhileDispatching
///        │ handler returned
///        ▼             answer
///   suspending ─────────────────────▶ answered ◀──── answer ──── suspended
///        │ suspended                  (resume,                      ▲
///        └─────────────────────────── then queue) ───────────────────┘
/// ```
enum DeliveryState: Int, CaseIterable, Sendable {
    /// The handler is running on the connection's thread.
    case dispatching
    /// The answer arrived while the handler ran: the connection's thread queues it.
    case answeredWhileDispatching
    /// The handler returned without an answer; the connection is being suspended.
    case suspending
    /// The connection is suspended, waiting for the answer.
    case suspended
    /// The answer arrived once the handler had returned: the connection is resumed (or
    /// about to be) to queue it.
    case answered

    /// Whether the connection was, or is being, suspended (so it is among the parked ones).
    var isParked: Bool {
        switch self {
        case .dispatching, .answeredWhileDispatching: false
        case .suspending, .suspended, .answered: true
        }
    }
}

/// Each move of ``DeliveryState``: where it goes (`nil`: stays) and what the side that
/// made it does next. Pure, so every pair of state and move is tested on its own.
enum DeliveryStateMachine {
    /// What the connection's thread does after the handler returned.
    enum AfterHandler: Equatable {
        /// Queue the answer now (it came while the handler ran).
        case queue
        /// Suspend the connection, then call ``afterSuspending(_:)``.
        case suspend
        /// A state the handler's return cannot meet: close the connection.
        case impossible
    }

    /// What the connection's thread does once it suspended the connection.
    enum AfterSuspending: Equatable {
        /// Nothing: whoever answers resumes the connection.
        case wait
        /// Resume at once: the answer came while suspending.
        case resume
        case impossible
    }

    /// What the sender of an answer does.
    enum AfterAnswer: Equatable {
        /// Nothing: the connection's thread takes the answer up.
        case none
        /// Resume the suspended connection, so that its thread queues the answer.
        case resume
        /// The request was answered already; this answer is dropped.
        case alreadyAnswered
    }

    /// The handler returned.
    static func handlerReturned(_ state: DeliveryState) -> (next: DeliveryState?, then: AfterHandler) {
        switch state {
        case .dispatching: (.suspending, .suspend)
        case .answeredWhileDispatching: (nil, .queue)
        case .suspending, .suspended, .answered: (nil, .impossible)
        }
    }

    /// The connection's thread suspended the connection.
    static func suspended(_ state: DeliveryState) -> (next: DeliveryState?, then: AfterSuspending) {
        switch state {
        case .suspending: (.suspended, .wait)
        case .answered: (nil, .resume)
        case .dispatching, .answeredWhileDispatching, .suspended: (nil, .impossible)
        }
    }

    /// An answer arrived, on any thread.
    static func answerArrived(_ state: DeliveryState) -> (next: DeliveryState?, then: AfterAnswer) {
        switch state {
        case .dispatching: (.answeredWhileDispatching, .none)
        case .suspending: (.answered, .none)
        case .suspended: (.answered, .resume)
        case .answeredWhileDispatching, .answered: (nil, .alreadyAnswered)
        }
    }
}

/// A state kept in an `Atomic<Int>` by its raw value and moved by compare-and-swap (see
/// ``Swift/Atomic/move(_:)``); `fallback` reads a raw value no case has, which only a bug
/// could store.
protocol AtomicState: RawRepresentable where RawValue == Int {
    static var fallback: Self { get }
}

extension DeliveryState: AtomicState {
    static var fallback: DeliveryState { .answered }
}

extension Atomic where Value == Int {
    /// Makes a move of the state held here: reads the state, asks `move` where it goes, and
    /// stores that with a compare-and-swap, again if another thread moved it meanwhile.
    /// Returns what the mover does next.
    func move<State: AtomicState, Then>(_ move: (State) -> (next: State?, then: Then)) -> Then {
        var current = load(ordering: .acquiring)
        while true {
            let (next, then) = move(State(rawValue: current) ?? .fallback)
            guard let next else { return then }
            let (exchanged, found) = compareExchange(expected: current, desired: next.rawValue, ordering: .acquiringAndReleasing)
            if exchanged { return then }
            current = found
        }
    }

    /// The delivery state held here.
    var deliveryState: DeliveryState {
        DeliveryState(rawValue: load(ordering: .acquiring)) ?? .fallback
    }
}
