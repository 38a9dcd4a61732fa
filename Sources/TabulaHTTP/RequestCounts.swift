/// One thread's share of the server's request counts (see ``ServerCore/counts``).
struct RequestCounts {
    /// Requests begun minus requests completed on this thread: a shard may go below zero
    /// when another thread completes a request; the sum over the shards is exact.
    var inProgress = 0
    /// Requests answered through ``HTTPHandler/quickAnswer(_:)``.
    var quickAnswers = 0
}

extension ShardedStorage where Value == RequestCounts {
    /// One count added up over the shards.
    func total(_ count: KeyPath<RequestCounts, Int>) -> Int {
        (0..<self.count).reduce(0) { sum, shard in sum + read(shard) { $0[keyPath: count] } }
    }
}
