internal import CMicroHTTPD
import HTTPTypes
import Logging
import Synchronization
import TabulaPlatform

/// libmicrohttpd's log lines, and the refusals they report.
extension ServerCore {
    /// libmicrohttpd's error log, routed into swift-log; refusals it makes on its own are
    /// recognized here so that metrics count them.
    func log(_ message: String) {
        let text = message.hasSuffix("\n") ? String(message.dropLast()) : message
        if let reason = Self.rejection(inLogMessage: text) { observer.requestRejected(reason) }
        logger.notice("libmicrohttpd: \(text)")
    }

    /// The refusal a libmicrohttpd log line reports, if any. libmicrohttpd answers some
    /// requests itself (HTTP/1.1 without Host, headers or a target over the connection
    /// memory, an HTTP version it does not speak, an unreadable Content-Length) and logs
    /// one "Error processing request (HTTP response code is N …)" line per refusal, often
    /// after a line naming the cause: only the first kind is counted, so that each refusal
    /// counts once, by its status.
    static func rejection(inLogMessage text: String) -> RejectionReason? {
        if let marker = text.firstRange(of: "Error processing request (HTTP response code is ") {
            let digits = text[marker.upperBound...].prefix { $0.isASCII && $0.isWholeNumber }
            switch Int(digits) {
            case 413: return .bodyTooLarge
            case 414: return .uriTooLong
            case 431: return .headersTooLarge
            case 501: return .unsupportedTransferEncoding  // what libmicrohttpd 1.0 answers with 501
            case 505: return .httpVersionNotSupported
            case let status? where (400..<500).contains(status): return .malformedRequest
            default: return nil
            }
        }
        let lowered = text.lowercased()
        if lowered.contains("connection limit") || lowered.contains("too many connections") { return .connectionLimit }
        return nil
    }
}
