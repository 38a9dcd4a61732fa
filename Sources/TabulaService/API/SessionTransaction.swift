import TabulaCore

/// What one transaction over a session decides, from a snapshot of it: an outcome, and
/// what to commit for it (`nil`: nothing). Pure: it neither reads nor writes the store.
/// A client's event (``EventProcessor``) and a backend's write (``StateWrite``) are both
/// decided this way.
protocol SessionDecision: Sendable {
    associatedtype Outcome: Sendable
    /// What to read of the session besides its current state.
    var read: SessionRead { get }
    func decide(_ snapshot: SessionSnapshot) -> (outcome: Outcome, commit: SessionCommit?)
    /// The outcome of a transaction that failed before or after deciding.
    static func refused(_ problem: Problem) -> Outcome
}

/// A change of a session as one transaction over the store: read the session, let a pure
/// decision say what to commit, and commit with a compare-and-swap on the revision. The
/// writers of one session in this process take turns (``SessionTurns``); when another
/// writer got there first all the same (another instance, or the backend writing by id
/// while a client writes by token), the commit writes nothing and the session is read and
/// decided again, on the state that writer left: under any number of concurrent writers,
/// acknowledged changes get distinct consecutive revisions.
extension APIContext {
    /// Reads and decides again at most this often before giving up with 503.
    static let maxTransactionAttempts = 100

    func runTransaction<Decision: SessionDecision>(
        _ decision: Decision, session name: SessionName, completion: @escaping @Sendable (Decision.Outcome) -> Void
    ) {
        turns.take(name) { [self] done in
            transact(decision, session: name, attempt: 1) { outcome in
                // Answered first, then the turn handed on: the next writer of the session may
                // run on this thread, and this answer (and the screen it keeps for the next
                // event's diff) should not wait for that writer's decision.
                completion(outcome)
                done()
            }
        }
    }

    private func transact<Decision: SessionDecision>(
        _ decision: Decision, session name: SessionName, attempt: Int, completion: @escaping @Sendable (Decision.Outcome) -> Void
    ) {
        readSession(name, decision.read, onProblem: { completion(Decision.refused($0)) }) { [self] snapshot in
            let (outcome, commit) = decision.decide(snapshot)
            guard let commit else { return completion(outcome) }
            store.commit(session: name, commit) { [self] result in
                switch result {
                case .success(.committed):
                    if let state = commit.state { streams.committed(name, state) }
                    completion(outcome)
                case .success(.unknownSession):
                    completion(Decision.refused(Self.unknown(name)))
                case .success(.conflict) where attempt < Self.maxTransactionAttempts:
                    transact(decision, session: name, attempt: attempt + 1, completion: completion)
                case .success(.conflict):
                    completion(Decision.refused(.store(StoreError("the session kept changing under \(attempt) attempts; retry"))))
                case .failure(let error):
                    completion(Decision.refused(.store(error)))
                }
            }
        }
    }

    /// Reads a session for a request: the one place where a store that cannot be reached
    /// becomes 503 and a session that does not exist a problem (401 for a client's token,
    /// 404 for the backend's id).
    func readSession(
        _ name: SessionName, _ request: SessionRead, onProblem: @escaping @Sendable (Problem) -> Void,
        _ body: @escaping @Sendable (SessionSnapshot) -> Void
    ) {
        store.read(session: name, request) { result in
            switch result {
            case .failure(let error): onProblem(.store(error))
            case .success(nil): onProblem(Self.unknown(name))
            case .success(let snapshot?): body(snapshot)
            }
        }
    }

    private static func unknown(_ name: SessionName) -> Problem {
        switch name {
        case .token: .unknownSession
        case .id(let id): .unknownSessionID(id)
        }
    }
}
