import TabulaHTTP
import TabulaPlatform

/// Events by kind and outcome (`tabula_events_total`) and the sizes of their change sets
/// (`tabula_change_set_items`), recorded on every event. Like ``RequestMetrics``, each server
/// thread records into its own shard: a shared counter and swift-prometheus's histogram
/// lock passed their cache lines between the cores on every event. `/metrics` adds the
/// shards up.
final class EventMetrics: Sendable {
    /// Upper bounds of the change-set size buckets.
    static let bucketBounds = [0, 1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 10000]

    private struct Outcome: Hashable {
        let kind: String
        let outcome: String
    }

    private struct Statistics {
        var outcomes: [Outcome: Int] = [:]
        /// One count per bucket (not cumulative) plus one for larger change sets.
        var sizeBuckets = [Int](repeating: 0, count: EventMetrics.bucketBounds.count + 1)
        var sizeSum = 0
        var sizeCount = 0

        mutating func add(_ other: Statistics) {
            outcomes.merge(other.outcomes, uniquingKeysWith: +)
            for index in sizeBuckets.indices { sizeBuckets[index] += other.sizeBuckets[index] }
            sizeSum += other.sizeSum
            sizeCount += other.sizeCount
        }
    }

    private let shards = ShardedStorage<Statistics>(perThread: { Statistics() })

    /// Counts an event; `changeCount` is the number of sections and rows its change set
    /// touched, for events that were applied.
    func record(kind: String, outcome: String, changeCount: Int?) {
        shards.withThreadShard { statistics in
            statistics.outcomes[Outcome(kind: kind, outcome: outcome), default: 0] += 1
            guard let changeCount else { return }
            let bucket = Self.bucketBounds.firstIndex { changeCount <= $0 } ?? Self.bucketBounds.count
            statistics.sizeBuckets[bucket] += 1
            statistics.sizeSum += changeCount
            statistics.sizeCount += 1
        }
    }

    /// The Prometheus text exposition; before the first event, the counter's type line and
    /// an empty histogram.
    func exposition() -> String {
        var total = Statistics()
        shards.readEach { total.add($0) }
        var text = "# TYPE tabula_events_total counter\n"
        for (key, count) in total.outcomes.sorted(by: { ($0.key.kind, $0.key.outcome) < ($1.key.kind, $1.key.outcome) }) {
            text += "tabula_events_total{kind=\"\(PrometheusText.escaped(key.kind))\",outcome=\"\(PrometheusText.escaped(key.outcome))\"} \(count)\n"
        }
        text += "# TYPE tabula_change_set_items histogram\n"
        PrometheusText.appendHistogram(
            "tabula_change_set_items", labels: "", bounds: Self.bucketBounds.map { "\($0).0" }, buckets: total.sizeBuckets,
            sum: "\(total.sizeSum).0", count: total.sizeCount, to: &text)
        return text
    }
}
