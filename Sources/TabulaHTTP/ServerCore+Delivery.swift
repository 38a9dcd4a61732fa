internal import CMicroHTTPD
import HTTPTypes
import Synchronization
import TabulaPlatform

/// Answers reaching their connections from any thread (see ``DeliveryStateMachine``).
extension ServerCore {
    /// Called by a ``Responder`` from any thread; only the first call counts.
    func deliver(_ response: Response, to context: RequestContext) {
        guard context.claimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        context.response = response
        switch context.delivery.move(DeliveryStateMachine.answerArrived) {
        case .resume: resume(context.connection)
        case .none, .alreadyAnswered: return
        }
    }

    /// Resumes a parked connection or a waiting stream, unless the daemon is stopping for good. No lock of ours
    /// is held across `MHD_resume_connection`, since libmicrohttpd takes its own locks there.
    /// Returns whether it resumed the connection.
    @discardableResult
    func resume(_ connection: OpaquePointer) -> Bool {
        resumesInProgress.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { resumesInProgress.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        guard !stopped.load(ordering: .sequentiallyConsistent) else { return false }
        MHD_resume_connection(connection)
        return true
    }
}
