public import HTTPTypes
public import TabulaCore
import TabulaHTTP

/// An error a client can act on, sent as an RFC 9457 problem document
/// (`application/problem+json`): `type`, `title`, `status` and a `detail` that says what
/// to fix, plus optional extension members.
public struct Problem: Error, Sendable, CustomStringConvertible {
    /// A stable identifier of the kind of problem, `urn:tabula:problem:<slug>`.
    public var type: String
    public var title: String
    public var status: HTTPResponse.Status
    public var detail: String
    public var extensions: [String: JSONValue]
    /// Extra response headers, such as `Allow` for 405.
    public var headerFields: HTTPFields

    public init(
        slug: String, title: String, status: HTTPResponse.Status, detail: String,
        extensions: [String: JSONValue] = [:], headerFields: HTTPFields = [:]
    ) {
        type = "urn:tabula:problem:\(slug)"
        self.title = title
        self.status = status
        self.detail = detail
        self.extensions = extensions
        self.headerFields = headerFields
    }

    /// The last part of `type`.
    public var slug: String { String(type.dropFirst("urn:tabula:problem:".count)) }

    public var description: String { "\(status.code) \(title): \(detail)" }

    /// The problem document's bytes: keys in ascending order, like every Tabula answer.
    public var jsonBytes: [UInt8] {
        var object = JSONObject()
        for (key, value) in extensions { object[key] = value }
        object["type"] = .string(type)
        object["title"] = .string(title)
        object["status"] = .number(Double(status.code))
        object["detail"] = .string(detail)
        return JSONValue.object(object).canonicalBytes
    }

    /// The HTTP response carrying the problem.
    public func response(route: String = "-") -> Response {
        var fields = headerFields
        fields[.contentType] = "application/problem+json"
        var response = Response(status: status, headerFields: fields, body: jsonBytes)
        response.route = route
        if status.kind == .clientError { response.rejection = slug }
        return response
    }
}

extension String {
    /// The text as a problem's detail quotes it: client input is cut at 64 characters, so
    /// that a megabyte-long field name does not come back as a megabyte-long answer.
    var clippedForDetail: String { clipped(at: 64) }

    /// The text cut at `limit` characters, with an ellipsis when it was longer: what a detail
    /// quotes of something another party wrote (a backend's answer, say).
    func clipped(at limit: Int) -> String {
        count > limit ? prefix(limit) + "…" : self
    }
}
