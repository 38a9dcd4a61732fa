import Synchronization
import Testing

@testable import TabulaHTTP

/// Every move of the delivery state from every state, and the orders in which the handler's
/// return, the suspension and the answer can come.
@Suite struct DeliveryStateMachineTests {
    typealias Machine = DeliveryStateMachine

    @Test(arguments: DeliveryState.allCases)
    func theHandlerReturning(from state: DeliveryState) {
        let (next, then) = Machine.handlerReturned(state)
        switch state {
        case .dispatching: #expect(next == .suspending && then == .suspend)
        case .answeredWhileDispatching: #expect(next == nil && then == .queue)
        case .suspending, .suspended, .answered: #expect(next == nil && then == .impossible)
        }
    }

    @Test(arguments: DeliveryState.allCases)
    func theConnectionSuspended(from state: DeliveryState) {
        let (next, then) = Machine.suspended(state)
        switch state {
        case .suspending: #expect(next == .suspended && then == .wait)
        case .answered: #expect(next == nil && then == .resume)
        case .dispatching, .answeredWhileDispatching, .suspended: #expect(next == nil && then == .impossible)
        }
    }

    @Test(arguments: DeliveryState.allCases)
    func anAnswerArriving(from state: DeliveryState) {
        let (next, then) = Machine.answerArrived(state)
        switch state {
        case .dispatching: #expect(next == .answeredWhileDispatching && then == .none)
        case .suspending: #expect(next == .answered && then == .none)
        case .suspended: #expect(next == .answered && then == .resume)
        case .answeredWhileDispatching, .answered: #expect(next == nil && then == .alreadyAnswered)
        }
    }

    /// Whatever the order, the answer is queued exactly once: at once, or by one resume.
    @Test func everyOrderOfTheThreeEventsQueuesTheAnswerOnce() {
        // The answer can come before the handler returns, between its return and the
        // suspension, or after the suspension.
        for answerAt in 0..<3 {
            let state = Atomic<Int>(DeliveryState.dispatching.rawValue)
            var queued = 0
            var resumes = 0
            if answerAt == 0, state.move(Machine.answerArrived) == .resume { resumes += 1 }
            switch state.move(Machine.handlerReturned) {
            case .queue: queued += 1
            case .impossible: Issue.record("the handler's return was refused")
            case .suspend:
                if answerAt == 1, state.move(Machine.answerArrived) == .resume { resumes += 1 }
                switch state.move(Machine.suspended) {
                case .resume: resumes += 1
                case .wait: break
                case .impossible: Issue.record("the suspension was refused")
                }
                if answerAt == 2, state.move(Machine.answerArrived) == .resume { resumes += 1 }
                if resumes == 1 && state.deliveryState == .answered { queued += 1 }
            }
            #expect(queued == 1, "answer at step \(answerAt)")
            #expect(resumes <= 1, "answer at step \(answerAt)")
            #expect(state.move(Machine.answerArrived) == .alreadyAnswered)
        }
    }

    @Test func parkedStatesAreTheOnesAfterTheHandlerReturned() {
        #expect(DeliveryState.allCases.filter(\.isParked) == [.suspending, .suspended, .answered])
    }
}
