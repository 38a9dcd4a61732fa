import CoreMetrics
public import Prometheus
import TabulaHTTP
import TabulaPlatform

/// The service's metrics, exposed as Prometheus text at `/metrics`. Each service has its
/// own registry, so several services (tests) can live in one process.
public final class ServiceMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    private let counters = Locked<[String: CoreMetrics.Counter]>([:])
    private let requests = RequestMetrics()
    private let events = EventMetrics()
    /// Calls of the app's backend by action: how many by outcome, and how long they took.
    private let actionCalls = Locked<[String: ActionCallRecord]>([:])

    private struct ActionCallRecord {
        var outcomes: [String: Int] = [:]
        var durations = DurationHistogram()
    }

    private let openConnections: CoreMetrics.Gauge
    private let requestsInProgress: CoreMetrics.Gauge
    private let sessions: CoreMetrics.Gauge
    private let openStreams: CoreMetrics.Gauge

    public init() {
        registry = PrometheusCollectorRegistry()
        factory = PrometheusMetricsFactory(registry: registry)
        openConnections = CoreMetrics.Gauge(label: "tabula_http_open_connections", factory: factory)
        requestsInProgress = CoreMetrics.Gauge(label: "tabula_http_requests_in_progress", factory: factory)
        sessions = CoreMetrics.Gauge(label: "tabula_sessions", factory: factory)
        openStreams = CoreMetrics.Gauge(label: "tabula_open_streams", factory: factory)
        // Every reason the HTTP layer knows starts at 0, so that a scrape before the first
        // refusal already shows the family, and rates start from a sample.
        for reason in RejectionReason.allCases { _ = counter("tabula_http_rejected_requests_total", ["reason": reason.rawValue]) }
        for outcome in ReloadOutcome.Kind.allCases { _ = counter("tabula_definition_reloads_total", ["outcome": outcome.rawValue]) }
    }

    /// Counts a finished request by route pattern and status, and records its latency.
    func recordRequest(route: String, status: Int, nanoseconds: Int64) {
        requests.record(route: route, status: status, nanoseconds: nanoseconds)
    }

    /// Counts a request or connection refused before routing, by reason.
    func recordRejection(_ reason: String) {
        counter("tabula_http_rejected_requests_total", ["reason": reason]).increment()
    }

    /// Counts an event by kind and outcome (changed, unchanged, replayed, rejected) and
    /// records how many sections and rows its change set touched.
    func recordEvent(kind: String, outcome: String, changeCount: Int? = nil) {
        events.record(kind: kind, outcome: outcome, changeCount: changeCount)
    }

    /// Counts a call of the app's backend by action and outcome (`answered`, `errors`,
    /// `timeout`, `failed`, `busy`), and records how long Tabula waited for its answer or
    /// failure, from sending it: `nil` for a call never sent (`busy`).
    func recordActionCall(action: String, outcome: String, nanoseconds: Int64? = nil) {
        actionCalls.withLock { calls in
            calls[action, default: ActionCallRecord()].outcomes[outcome, default: 0] += 1
            if let nanoseconds { calls[action, default: ActionCallRecord()].durations.record(nanoseconds: nanoseconds) }
        }
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

    /// The Prometheus text exposition, with gauges read at this moment, how often each
    /// growth limit took effect (`tabula_limit_reached_total{limit}`), added up from
    /// `limits` (the store's, the service's), the connections opened to the app's
    /// backend (`tabula_action_connections_opened_total`: calls reuse them), and its calls
    /// by outcome (`tabula_action_calls_total{action,outcome}`) and how long they took
    /// (`tabula_action_call_duration_seconds{action}`): written here, so that their type
    /// lines are there before the first call.
    func exposition(
        server load: ServerLoad, sessions sessionCount: Int, openStreams streams: Int, actionConnections: Int = 0,
        limits: [LimitCounts] = []
    ) -> [UInt8] {
        openConnections.record(load.openConnections)
        requestsInProgress.record(load.requestsInProgress)
        sessions.record(sessionCount)
        openStreams.record(streams)
        var text = "# HELP tabula_limit_reached_total Times a bound on growth took effect: a refusal, or something old dropped.\n"
        text += "# TYPE tabula_limit_reached_total counter\n"
        for limit in GrowthLimit.allCases {
            text += "tabula_limit_reached_total{limit=\"\(limit.rawValue)\"} \(limits.reduce(0) { $0 + $1[limit] })\n"
        }
        text += "# HELP tabula_action_connections_opened_total Connections opened to the app's backend; calls reuse them.\n"
        text += "# TYPE tabula_action_connections_opened_total counter\n"
        text += "tabula_action_connections_opened_total \(actionConnections)\n"
        let calls = actionCalls.withLock { $0 }.sorted { $0.key < $1.key }
        text += "# HELP tabula_action_calls_total Calls of the app's backend, by action and outcome.\n"
        text += "# TYPE tabula_action_calls_total counter\n"
        for (action, record) in calls {
            for (outcome, count) in record.outcomes.sorted(by: { $0.key < $1.key }) {
                text += "tabula_action_calls_total{action=\"\(PrometheusText.escaped(action))\",outcome=\"\(outcome)\"} \(count)\n"
            }
        }
        text += "# HELP tabula_action_call_duration_seconds How long calls of the app's backend took, from sending to the answer or failure.\n"
        text += "# TYPE tabula_action_call_duration_seconds histogram\n"
        for (action, record) in calls where record.durations.count > 0 {
            record.durations.append("tabula_action_call_duration_seconds", labels: "action=\"\(PrometheusText.escaped(action))\"", to: &text)
        }
        return Array((requests.exposition() + events.exposition() + text).utf8) + registry.emitToBuffer()
    }
}
