/// How a stream's connection waits for something to send without holding its thread. The
/// connection's thread asks the stream's source for bytes whenever libmicrohttpd can send;
/// when there are none it suspends the connection, and a producer on any thread wakes it
/// by resuming it. A connection is resumed only when it is suspended: a wake that comes
/// while the connection's thread is still looking or suspending is left for that thread to
/// see. Both sides move one atomic state, without a lock.
///
/// ```
///              wake                          nothing to send
///   running ─────────▶ woken ──────────────────────────────▶ running (look again)
///      │ nothing to send
///      ▼                  wake
///   suspending ─────────────────▶ wokenWhileSuspending ──suspended──▶ running (resume)
///      │ suspended
///      ▼           wake
///   suspended ─────────────▶ resuming ──resumed──▶ running
///                               │ wake
///                               ▼
///                          resumingWoken ──resumed──▶ woken
/// ```
/// A wake that resumes the connection holds it in `resuming` until `MHD_resume_connection`
/// returned, so that a shutdown, which waits for no stream to be suspended or resuming,
/// never stops the daemon between the two. The connection's thread may run meanwhile, and
/// find nothing to send before a second wake comes: that wake is kept (`resumingWoken`), so
/// that the thread looks again rather than suspend with an event waiting. A stream whose
/// request completed is `closed`, for good.
enum StreamState: Int, CaseIterable, Sendable, AtomicState {
    /// The connection's thread may be asking the source for bytes, or sending them.
    case running
    /// A wake came while running: the next look for bytes must not suspend.
    case woken
    /// Nothing to send: the connection's thread is suspending the connection.
    case suspending
    /// A wake came while suspending: the connection's thread resumes the connection itself.
    case wokenWhileSuspending
    /// The connection is suspended until a wake resumes it.
    case suspended
    /// A wake is resuming the connection; the connection's thread may already run.
    case resuming
    /// A second wake came while resuming: the next look for bytes must not suspend.
    case resumingWoken
    /// The request is over; wakes do nothing.
    case closed

    static var fallback: StreamState { .closed }
}

/// Each move of ``StreamState``: where it goes (`nil`: stays) and what the side that made it
/// does next. Pure, so every pair of state and move is tested on its own.
enum StreamStateMachine {
    /// What the connection's thread does when the source has nothing to send.
    enum AfterNothingToSend: Equatable {
        /// Suspend the connection, then make the ``suspended(_:)`` move.
        case suspend
        /// Ask the source again: something was sent meanwhile.
        case lookAgain
        /// The request is over or in a state a reader cannot meet: end the response.
        case end
    }

    /// What the connection's thread does once it suspended the connection.
    enum AfterSuspending: Equatable {
        /// Nothing: a wake resumes the connection.
        case wait
        /// Resume at once: a wake came while suspending.
        case resume
        case impossible
    }

    /// What a waker does.
    enum AfterWake: Equatable {
        /// Nothing: the connection's thread will look again.
        case none
        /// Resume the suspended connection, then make the ``resumed(_:)`` move.
        case resume
    }

    static func nothingToSend(_ state: StreamState) -> (next: StreamState?, then: AfterNothingToSend) {
        switch state {
        // Resumed, the connection's thread may run before its waker's `resumed` move.
        case .running, .resuming: (.suspending, .suspend)
        case .woken: (.running, .lookAgain)
        // Still resuming until the waker's `resumed` move.
        case .resumingWoken: (.resuming, .lookAgain)
        case .suspending, .wokenWhileSuspending, .suspended, .closed: (nil, .end)
        }
    }

    static func suspended(_ state: StreamState) -> (next: StreamState?, then: AfterSuspending) {
        switch state {
        case .suspending: (.suspended, .wait)
        case .wokenWhileSuspending: (.running, .resume)
        case .running, .woken, .suspended, .resuming, .resumingWoken, .closed: (nil, .impossible)
        }
    }

    static func wake(_ state: StreamState) -> (next: StreamState?, then: AfterWake) {
        switch state {
        case .running: (.woken, .none)
        case .suspending: (.wokenWhileSuspending, .none)
        case .suspended: (.resuming, .resume)
        case .resuming: (.resumingWoken, .none)
        case .woken, .wokenWhileSuspending, .resumingWoken, .closed: (nil, .none)
        }
    }

    /// The waker's `MHD_resume_connection` returned. The connection's thread may have moved
    /// on meanwhile (to look again, or to suspend again): then this changes nothing.
    static func resumed(_ state: StreamState) -> (next: StreamState?, then: Void) {
        switch state {
        case .resuming: (.running, ())
        case .resumingWoken: (.woken, ())
        case .running, .woken, .suspending, .wokenWhileSuspending, .suspended, .closed: (nil, ())
        }
    }

    /// The request completed: the connection is never resumed again.
    static func close(_ state: StreamState) -> (next: StreamState?, then: Void) {
        (state == .closed ? nil : .closed, ())
    }
}
