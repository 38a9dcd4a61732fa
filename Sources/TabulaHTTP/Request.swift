public import HTTPTypes

/// An HTTP request as the server received it, body included.
public struct Request: Sendable {
    public var method: HTTPRequest.Method
    /// The path as sent, percent-escapes left in place; see ``pathSegments()``.
    public var rawPath: String
    /// Query arguments as sent (escapes left in place), in order; `nil` for `?name` without `=`.
    public var rawQuery: [(name: String, value: String?)]
    /// The headers as sent; ``headerFields`` gives them as swift-http-types fields.
    public var headers: RequestHeaders
    public var body: [UInt8]
    /// "HTTP/1.1" or "HTTP/1.0".
    public var version: String
    /// The client's address, such as "127.0.0.1".
    public var remoteAddress: String
    /// When the server started reading the request.
    public var receivedAt: ContinuousClock.Instant

    public init(
        method: HTTPRequest.Method, rawPath: String, rawQuery: [(name: String, value: String?)] = [],
        headers: RequestHeaders = RequestHeaders(), body: [UInt8] = [], version: String = "HTTP/1.1",
        remoteAddress: String = "", receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.rawPath = rawPath
        self.rawQuery = rawQuery
        self.headers = headers
        self.body = body
        self.version = version
        self.remoteAddress = remoteAddress
        self.receivedAt = receivedAt
    }

    /// The headers as swift-http-types fields (built on each call).
    public var headerFields: HTTPFields { headers.fields }

    /// The path's segments, percent-decoded one by one (so an encoded "/" stays inside its
    /// segment); `nil` when an escape is malformed or decodes to invalid UTF-8.
    public func pathSegments() -> [String]? {
        Self.pathSegments(of: rawPath)
    }

    /// The path of a request target as sent: an absolute-form target (`http://host/path`),
    /// which RFC 9112 section 3.2.2 says a server must accept, without its scheme and
    /// authority (`/` when it has no path); any other target as it is.
    static func originPath(of target: String) -> String {
        guard target.utf8.first != UInt8(ascii: "/") else { return target }
        var rest = Substring(target)
        guard let colon = rest.firstIndex(of: ":") else { return target }
        let scheme = rest[..<colon].lowercased()
        guard scheme == "http" || scheme == "https", rest[colon...].hasPrefix("://") else { return target }
        rest = rest[rest.index(colon, offsetBy: 3)...]
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        return String(rest[slash...])
    }

    /// The segments of a path as sent; see ``pathSegments()``.
    public static func pathSegments(of rawPath: String) -> [String]? {
        var path = rawPath
        return path.withUTF8 { bytes -> [String]? in
            guard bytes.first == UInt8(ascii: "/") else { return nil }
            var segments: [String] = []
            segments.reserveCapacity(4)
            var start = 1
            var needsDecoding = false
            var ascii = true
            for index in 1...bytes.count {
                if index < bytes.count && bytes[index] != UInt8(ascii: "/") {
                    if bytes[index] == UInt8(ascii: "%") { needsDecoding = true }
                    if bytes[index] >= 0x80 { ascii = false }
                    continue
                }
                let segment = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if needsDecoding {
                    guard let decoded = PercentDecoding.decode(segment) else { return nil }
                    segments.append(decoded)
                } else if ascii {
                    segments.append(String(decoding: segment, as: UTF8.self))
                } else {
                    // Paths arrive as bytes from the network: reject what is not UTF-8.
                    guard let text = String(validating: segment, as: UTF8.self) else { return nil }
                    segments.append(text)
                }
                start = index + 1
                needsDecoding = false
                ascii = true
            }
            return segments
        }
    }

    /// The decoded value of the first query argument with this name (`.absent`, `.present(nil)`
    /// without a value, `.malformed` for a bad escape), and how many arguments have the name:
    /// a route that takes one refuses more. One pass over the query.
    public func queryArgument(_ name: String) -> (value: QueryValue, count: Int) {
        var first: (name: String, value: String?)?
        var count = 0
        for argument in rawQuery where PercentDecoding.decode(Substring(argument.name).utf8, plusIsSpace: true) == name {
            if first == nil { first = argument }
            count += 1
        }
        guard let first else { return (.absent, 0) }
        guard let raw = first.value else { return (.present(nil), count) }
        guard let decoded = PercentDecoding.decode(Substring(raw).utf8, plusIsSpace: true) else { return (.malformed, count) }
        return (.present(decoded), count)
    }

    public enum QueryValue: Equatable, Sendable {
        case absent
        case present(String?)
        case malformed
    }
}

/// Decodes %XX escapes strictly: a malformed escape or invalid UTF-8 gives `nil`.
enum PercentDecoding {
    static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, plusIsSpace: Bool = false) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let high = bytes.index(after: index)
                guard high != bytes.endIndex else { return nil }
                let low = bytes.index(after: high)
                guard low != bytes.endIndex, let h = hexValue(bytes[high]), let l = hexValue(bytes[low]) else { return nil }
                output.append(h << 4 | l)
                index = bytes.index(after: low)
            } else {
                output.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = bytes.index(after: index)
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
