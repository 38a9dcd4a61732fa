import Testing

@testable import TabulaHTTP

/// Every move of a stream's state from every state.
@Suite struct StreamStateMachineTests {
    typealias Machine = StreamStateMachine

    @Test(arguments: StreamState.allCases)
    func findingNothingToSend(from state: StreamState) {
        let (next, then) = Machine.nothingToSend(state)
        switch state {
        case .running, .resuming: #expect(next == .suspending && then == .suspend)
        case .woken: #expect(next == .running && then == .lookAgain)
        case .resumingWoken: #expect(next == .resuming && then == .lookAgain)
        case .suspending, .wokenWhileSuspending, .suspended, .closed: #expect(next == nil && then == .end)
        }
    }

    @Test(arguments: StreamState.allCases)
    func theConnectionSuspended(from state: StreamState) {
        let (next, then) = Machine.suspended(state)
        switch state {
        case .suspending: #expect(next == .suspended && then == .wait)
        case .wokenWhileSuspending: #expect(next == .running && then == .resume)
        case .running, .woken, .suspended, .resuming, .resumingWoken, .closed: #expect(next == nil && then == .impossible)
        }
    }

    @Test(arguments: StreamState.allCases)
    func aWake(from state: StreamState) {
        let (next, then) = Machine.wake(state)
        switch state {
        case .running: #expect(next == .woken && then == .none)
        case .suspending: #expect(next == .wokenWhileSuspending && then == .none)
        case .suspended: #expect(next == .resuming && then == .resume)
        case .resuming: #expect(next == .resumingWoken && then == .none)
        case .woken, .wokenWhileSuspending, .resumingWoken, .closed: #expect(next == nil && then == .none)
        }
    }

    @Test(arguments: StreamState.allCases)
    func theWakersResumeReturned(from state: StreamState) {
        let (next, _) = Machine.resumed(state)
        #expect(next == (state == .resuming ? .running : state == .resumingWoken ? .woken : nil))
    }

    /// A wake that comes while an earlier wake is resuming the connection, after the
    /// connection's thread found nothing to send, is not lost: whether the earlier waker's
    /// resume returns before the thread's next move or after it, the thread looks again.
    @Test(arguments: [false, true])
    func aWakeWhileResumingMakesTheConnectionLookAgain(resumedFirst: Bool) {
        var state = StreamState.suspended
        func move(_ step: (StreamState) -> (next: StreamState?, then: some Any)) {
            if let next = step(state).next { state = next }
        }
        #expect(Machine.wake(state).then == .resume)
        move(Machine.wake)  // the first waker resumes the connection
        move(Machine.wake)  // a second wake, while the first has not returned
        if resumedFirst { move(Machine.resumed) }
        let (next, then) = Machine.nothingToSend(state)
        #expect(then == .lookAgain, "the second wake was lost")
        if let next { state = next }
        if !resumedFirst { move(Machine.resumed) }
        #expect(state == .running)
    }

    /// Whatever the order of a wake and the connection's thread suspending, the connection
    /// is resumed exactly once, and only after it was suspended.
    @Test func aWakeAtEachStepOfSuspendingResumesOnce() {
        for wakeAt in 0...2 {
            var state = StreamState.running
            var resumes = 0
            var suspended = false
            func wake() {
                let (next, then) = Machine.wake(state)
                if let next { state = next }
                if then == .resume {
                    #expect(suspended)
                    resumes += 1
                    if let after = Machine.resumed(state).next { state = after }
                }
            }
            if wakeAt == 0 { wake() }
            var (next, look) = Machine.nothingToSend(state)
            if let next { state = next }
            if look == .lookAgain {
                (next, look) = Machine.nothingToSend(state)
                if let next { state = next }
                // Nothing to send still: this time it suspends, and the test wakes later.
                wake()
            }
            #expect(look == .suspend)
            if wakeAt == 1 { wake() }
            suspended = true
            let (after, then) = Machine.suspended(state)
            if let after { state = after }
            if then == .resume { resumes += 1 }
            if wakeAt == 2 { wake() }
            #expect(resumes == 1, "wake at step \(wakeAt)")
            #expect(state == .running)
        }
    }
}
