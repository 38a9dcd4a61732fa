import CoreMetrics
public import Prometheus
import TabulaHTTP

/// The service's metrics, exposed as Prometheus text at `/metrics`. Each service has its
/// own registry, so several services (tests) can live in one process.
public final class ServiceMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    private let counters = Locked<[String: CoreMetrics.Counter]>([:])
    private let timers = Locked<[String: CoreMetrics.Timer]>([:])
    private let openConnections: CoreMetrics.Gauge

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2),
        ]
        self.factory = factory
        openConnections = CoreMetrics.Gauge(label: "tabula_http_open_connections", factory: factory)
    }

    /// Counts a finished request by route pattern and status, and records its latency.
    func recordRequest(route: String, status: Int, duration: Duration) {
        counter("tabula_http_requests_total", ["route": route, "status": String(status)]).increment()
        let timer = timers.withLock { timers in
            if let timer = timers[route] { return timer }
            let timer = CoreMetrics.Timer(label: "tabula_http_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            timers[route] = timer
            return timer
        }
        let (seconds, attoseconds) = duration.components
        timer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Counts a request or connection refused before routing, by reason.
    func recordRejection(_ reason: String) {
        counter("tabula_http_rejected_requests_total", ["reason": reason]).increment()
    }

    /// A counter by name and labels, created once and then reused.
    func counter(_ name: String, _ labels: KeyValuePairs<String, String>) -> CoreMetrics.Counter {
        let key = name + labels.map { "|\($0.key)=\($0.value)" }.joined()
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(label: name, dimensions: labels.map { ($0.key, $0.value) }, factory: factory)
            counters[key] = counter
            return counter
        }
    }

    /// The Prometheus text exposition, with gauges read at this moment.
    func exposition(openConnections connections: Int) -> [UInt8] {
        openConnections.record(connections)
        return registry.emitToBuffer()
    }
}
