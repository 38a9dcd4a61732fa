import TabulaHTTP
import TabulaPlatform

/// Request counts by (route, status) and latency histograms by route, recorded on every
/// request. Each server thread records into its own shard (its own lock and memory), so
/// threads never wait for each other or pass cache lines back and forth; `/metrics` adds
/// the shards up. swift-prometheus's shared histogram lock cost a few hundred nanoseconds
/// per request under load.
final class RequestMetrics: Sendable {
    /// Upper bounds of the latency buckets, in nanoseconds, and their `le` labels.
    static let bucketBounds: [Int64] = [
        50_000, 100_000, 250_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 25_000_000,
        50_000_000, 100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_000_000_000,
    ]
    static let bucketLabels = [
        "0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.002", "0.005", "0.01", "0.025",
        "0.05", "0.1", "0.25", "0.5", "1.0", "2.0",
    ]

    struct RouteStatistics {
        /// (status, count) pairs: a route answers with few statuses, found by a short scan.
        var countsByStatus: [(status: Int, count: Int)] = []
        /// One count per bucket (not cumulative) plus one for slower requests.
        var buckets = [Int](repeating: 0, count: RequestMetrics.bucketBounds.count + 1)
        var totalNanoseconds: Int64 = 0
        var count = 0

        mutating func record(status: Int, nanoseconds: Int64) {
            count(status, 1)
            var bucket = 0
            while bucket < RequestMetrics.bucketBounds.count && nanoseconds > RequestMetrics.bucketBounds[bucket] { bucket += 1 }
            buckets[bucket] += 1
            totalNanoseconds &+= nanoseconds
            count += 1
        }

        mutating func count(_ status: Int, _ increment: Int) {
            if let index = countsByStatus.firstIndex(where: { $0.status == status }) {
                countsByStatus[index].count += increment
            } else {
                countsByStatus.append((status, increment))
            }
        }

        mutating func add(_ other: RouteStatistics) {
            for (status, count) in other.countsByStatus { self.count(status, count) }
            for index in buckets.indices { buckets[index] += other.buckets[index] }
            totalNanoseconds &+= other.totalNanoseconds
            count += other.count
        }
    }

    /// A route pattern as a key. Patterns are few and fixed, so a hash of the length is
    /// enough, and equal patterns usually share storage (the comparison is then immediate).
    struct RouteKey: Hashable {
        let route: String

        func hash(into hasher: inout Hasher) {
            hasher.combine(route.utf8.count)
        }

        func _rawHashValue(seed: Int) -> Int {
            seededHash(route.utf8.count, seed: seed)
        }
    }

    private let shards = ShardedStorage<[RouteKey: RouteStatistics]>(perThread: { [:] })

    func record(route: String, status: Int, nanoseconds: Int64) {
        shards.withThreadShard { routes in
            routes[RouteKey(route: route), default: RouteStatistics()].record(status: status, nanoseconds: nanoseconds)
        }
    }

    /// Every shard added up, by route.
    func snapshot() -> [String: RouteStatistics] {
        var total: [String: RouteStatistics] = [:]
        shards.readEach { routes in
            for (key, statistics) in routes { total[key.route, default: RouteStatistics()].add(statistics) }
        }
        return total
    }

    /// The Prometheus text exposition of `tabula_http_requests_total` and
    /// `tabula_http_request_duration_seconds`; before the first request, their type lines
    /// alone.
    func exposition() -> String {
        let routes = snapshot().sorted { $0.key < $1.key }
        var text = "# TYPE tabula_http_requests_total counter\n"
        for (route, statistics) in routes {
            for (status, count) in statistics.countsByStatus.sorted(by: { $0.status < $1.status }) {
                text += "tabula_http_requests_total{route=\"\(PrometheusText.escaped(route))\",status=\"\(status)\"} \(count)\n"
            }
        }
        text += "# TYPE tabula_http_request_duration_seconds histogram\n"
        for (route, statistics) in routes {
            PrometheusText.appendHistogram(
                "tabula_http_request_duration_seconds", labels: "route=\"\(PrometheusText.escaped(route))\"",
                bounds: Self.bucketLabels, buckets: statistics.buckets, sum: Self.seconds(statistics.totalNanoseconds),
                count: statistics.count, to: &text)
        }
        return text
    }

    /// "0.000123456" for 123,456 nanoseconds.
    static func seconds(_ nanoseconds: Int64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }
}
