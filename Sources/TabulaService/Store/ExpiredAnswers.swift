/// How the durable stores' retention removes expired answers: in batches, each well within
/// a statement's time (PostgreSQL's statement timeout, SQLite's writer that events wait
/// behind), a bounded number a pass. A backlog (a shorter `--idempotency-ttl`, a long stop)
/// goes over a few passes, and never stops one; an expired answer is never replayed
/// meanwhile, since reads check its time.
enum ExpiredAnswers {
    /// Answers removed in one statement.
    static let batch = 2_000
    /// Statements in one retention pass.
    static let batchesPerPass = 10

    /// Runs `deleteBatch`, which removes up to its argument's number of expired answers and
    /// returns how many it removed, until a batch is not full or the pass has run its share.
    static func remove<Failure: Error>(_ deleteBatch: (Int) throws(Failure) -> Int) throws(Failure) {
        for _ in 0..<batchesPerPass {
            guard try deleteBatch(batch) == batch else { return }
        }
    }
}
