import Logging
import TabulaHTTP

/// Turns server events into one log line per request and into metrics.
struct RequestObserver: HTTPServerObserver {
    let logger: Logger
    let metrics: ServiceMetrics

    func requestCompleted(_ summary: RequestSummary) {
        metrics.recordRequest(route: summary.route, status: summary.status, duration: summary.duration)
        guard logger.logLevel <= .info else { return }
        let (seconds, attoseconds) = summary.duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        // One string, no metadata dictionary: this line is written for every request.
        let session = summary.logContext.map { " session=" + $0 } ?? ""
        logger.info("\(summary.method) \(summary.path) \(summary.status) \(Self.milliseconds(microseconds))ms client=\(summary.remoteAddress)\(session)")
    }

    func requestRejected(_ reason: RejectionReason) {
        metrics.recordRejection(reason.rawValue)
        logger.notice("refused a request: \(reason.rawValue)")
    }

    /// "0.123" for 123 microseconds.
    static func milliseconds(_ microseconds: Int64) -> String {
        let whole = microseconds / 1000
        let fraction = String(microseconds % 1000)
        return "\(whole)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
