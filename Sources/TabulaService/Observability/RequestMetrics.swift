import TabulaHTTP
import TabulaPlatform

/// Request counts by (route, status) and latency histograms by route, recorded on every
/// request. Each server thread records into its own shard (its own lock and memory), so
/// threads never wait for each other or pass cache lines back and forth; `/metrics` adds
/// the shards up. swift-prometheus's shared histogram lock cost a few hundred nanoseconds
/// per request under load.
final class RequestMetrics: Sendable {
    struct RouteStatistics {
        /// (status, count) pairs: a route answers with few statuses, found by a short scan.
        var countsByStatus: [(status: Int, count: Int)] = []
        var durations = DurationHistogram()

        mutating func record(status: Int, nanoseconds: Int64) {
            count(status, 1)
            durations.record(nanoseconds: nanoseconds)
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
            durations.add(other.durations)
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
            statistics.durations.append(
                "tabula_http_request_duration_seconds", labels: "route=\"\(PrometheusText.escaped(route))\"", to: &text)
        }
        return text
    }
}
