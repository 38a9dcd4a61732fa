import TabulaCore

/// An event as one transaction over the store: read the session, let the pure core decide
/// (``EventProcessor``), and commit with a compare-and-swap on the revision. When another
/// writer got there first (another request on the session, or another instance), the
/// commit writes nothing and the event is read and decided again, on the state that writer
/// left: under any number of concurrent clients, acknowledged events get distinct
/// consecutive revisions.
extension APIContext {
    /// Reads and decides again at most this often before giving up with 503.
    static let maxTransactionAttempts = 100

    func runTransaction(
        _ processor: EventProcessor, session token: String, attempt: Int = 1, completion: @escaping @Sendable (EventOutcome) -> Void
    ) {
        readSession(token, processor.read, onProblem: { completion(.problem($0)) }) { [self] snapshot in
            let (outcome, commit) = processor.decide(snapshot)
            guard let commit else { return completion(outcome) }
            store.commit(session: token, commit) { [self] result in
                switch result {
                case .success(.committed):
                    completion(outcome)
                case .success(.unknownSession):
                    completion(.problem(.unknownSession))
                case .success(.conflict) where attempt < Self.maxTransactionAttempts:
                    runTransaction(processor, session: token, attempt: attempt + 1, completion: completion)
                case .success(.conflict):
                    completion(.problem(.storeUnavailable(StoreError("the session kept changing under \(attempt) attempts; retry"))))
                case .failure(let error):
                    completion(.problem(.storeUnavailable(error)))
                }
            }
        }
    }

    /// Reads a session for a request: the one place where a store that cannot be reached
    /// becomes 503 and a session that does not exist 401.
    func readSession(
        _ token: String, _ request: SessionRead, onProblem: @escaping @Sendable (Problem) -> Void,
        _ body: @escaping @Sendable (SessionSnapshot) -> Void
    ) {
        store.read(session: token, request) { result in
            switch result {
            case .failure(let error): onProblem(.storeUnavailable(error))
            case .success(nil): onProblem(.unknownSession)
            case .success(let snapshot?): body(snapshot)
            }
        }
    }
}
