import HTTPTypes
import TabulaHTTP

extension Problem {
    static func notFound(path: String) -> Problem {
        Problem(
            slug: "not-found", title: "Not Found", status: .notFound,
            detail: "there is no resource at \(path.clippedForDetail); see /openapi.json for the routes this service has")
    }

    static func methodNotAllowed(_ method: HTTPRequest.Method, path: String, allowed: [HTTPRequest.Method]) -> Problem {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        var fields = HTTPFields()
        fields[.allow] = list
        return Problem(
            slug: "method-not-allowed", title: "Method Not Allowed", status: .methodNotAllowed,
            detail: "\(path.clippedForDetail) does not support \(method.rawValue.clippedForDetail); use \(list)", headerFields: fields)
    }

    static func malformedPath(_ path: String) -> Problem {
        Problem(
            slug: "malformed-path", title: "Malformed Path", status: .badRequest,
            detail: "the path \(path.clippedForDetail) has an invalid percent-escape or is not UTF-8; escape reserved characters as %XX")
    }

    /// The answer for a request the HTTP layer refused before routing.
    static func refusal(_ reason: RejectionReason, maxBodyBytes: Int) -> Problem {
        let detail: String
        var fields = HTTPFields()
        switch reason {
        case .bodyTooLarge:
            detail = "the request body is larger than the limit of \(maxBodyBytes) bytes; send a smaller body"
        case .duplicateContentLength:
            detail = "the request has more than one Content-Length header; send exactly one"
        case .contentLengthWithTransferEncoding:
            detail = "the request has both Content-Length and Transfer-Encoding; send only one of them"
        case .malformedHeader:
            detail = "a header name is not an HTTP token (a space before the colon, for example); send \"Name: value\""
        case .malformedPath:
            detail = "the request target is not valid UTF-8 or holds a raw NUL byte; percent-encode bytes outside printable ASCII"
        case .duplicateHost:
            detail = "the request has more than one Host header; send exactly one"
        case .unsupportedTransferEncoding:
            detail = "only Transfer-Encoding: chunked is supported; send the body plainly with Content-Length, or chunked"
        case .headersTooLarge:
            detail = "the request's headers are too large; send fewer or shorter headers"
        case .uriTooLong:
            detail = "the request target is too long; send a shorter path and query"
        case .httpVersionNotSupported:
            detail = "the HTTP version is not supported; use HTTP/1.1 or HTTP/1.0"
        case .malformedRequest:
            detail = "the request is malformed (for example, its method is not a valid HTTP token)"
        case .headerTimeout:
            detail = "the request's line and headers did not arrive within the header timeout; send them at once"
        case .connectionLimit, .shuttingDown:
            detail = "the service is shutting down or at its connection limit; retry shortly"
            fields[.retryAfter] = "1"
        }
        return Problem(
            slug: reason.rawValue.replacingUnderscores(), title: reason.status.reasonPhrase, status: reason.status,
            detail: detail, headerFields: fields)
    }
}

extension String {
    func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
