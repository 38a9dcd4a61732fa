import Logging
import TabulaHTTP

/// Turns server events into one log line per request and into metrics.
struct RequestObserver: HTTPServerObserver {
    let logger: Logger
    let metrics: ServiceMetrics
    let accessLog: AccessLog
    /// Whether the logger takes `info` lines, read once: a logger's level is part of its
    /// value, and asking for it copies the handler, retaining what every thread shares.
    private let writesAccessLog: Bool

    init(logger: Logger, metrics: ServiceMetrics, accessLog: AccessLog) {
        self.logger = logger
        self.metrics = metrics
        self.accessLog = accessLog
        writesAccessLog = logger.logLevel <= .info
    }

    func requestCompleted(_ summary: borrowing RequestSummary) {
        let nanoseconds = summary.durationNanoseconds
        metrics.recordRequest(route: summary.route, status: summary.status, nanoseconds: nanoseconds)
        if let rejection = summary.rejection { metrics.recordRejection(rejection) }
        guard writesAccessLog else { return }
        accessLog.write(summary, nanoseconds: nanoseconds, logger: logger)
    }

    func requestRejected(_ reason: RejectionReason) {
        metrics.recordRejection(reason.rawValue)
        logger.notice("refused a request: \(reason.rawValue)")
    }
}
