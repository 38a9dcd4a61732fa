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
        var sum = 0
        readEach { sum += $0[keyPath: count] }
        return sum
    }
}
