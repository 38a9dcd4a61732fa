internal import CMicroHTTPD

/// The header rules that decide whether a request can be read safely, applied one header
/// at a time. Both scans apply them through this, ``HeaderScan`` for every request and
/// ``UnparsedGetScan`` for a `GET` offered unparsed, so they are written once.
struct FramingCheck {
    /// What a header is to the framing rules.
    enum Field {
        case host, contentLength, transferEncoding, other
        /// A name that is not an RFC 9110 token.
        case malformed
    }

    private(set) var hasMalformedName = false
    /// Whether a header came folded over two lines (obs-fold, which RFC 9112 section 5.2
    /// asks a server to refuse): libmicrohttpd appends the continuation to the header's
    /// name, so `Transfer-Enc: chunked` and ` oding` make a `Transfer-Encoding` that a proxy
    /// joining the lines never saw.
    private(set) var hasFoldedLine = false
    /// Whether a value holds a control character other than a tab (RFC 9110 section 5.5):
    /// libmicrohttpd ends a line at CRLF or LF only, so a bare CR stays in the value, where a
    /// proxy that ends lines there would read `a\rTransfer-Encoding: chunked` as two headers.
    private(set) var hasControlInValue = false
    private(set) var hostCount = 0
    /// Whether a Content-Length or Transfer-Encoding header announced a body.
    private(set) var announcesBody = false

    static let contentLength: StaticString = "content-length"
    static let transferEncoding: StaticString = "transfer-encoding"
    static let host: StaticString = "host"

    @inline(__always)
    mutating func see(_ name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Field {
        if name.isEmpty || !name.allSatisfy(ASCII.isTokenCharacter) {
            hasMalformedName = true
            return .malformed
        }
        if !Self.isOnOneLine(name, value) {
            hasFoldedLine = true
            return .malformed
        }
        if Self.holdsControlCharacter(value) {
            hasControlInValue = true
            return .malformed
        }
        if ASCII.equalIgnoringCase(name, Self.host) {
            hostCount += 1
            return .host
        }
        if ASCII.equalIgnoringCase(name, Self.contentLength) {
            announcesBody = true
            return .contentLength
        }
        if ASCII.equalIgnoringCase(name, Self.transferEncoding) {
            announcesBody = true
            return .transferEncoding
        }
        return .other
    }

    /// Whether libmicrohttpd read the header from one `Name: value` line: a header's value
    /// follows its name in the connection's buffer, past the colon (which libmicrohttpd
    /// overwrites with a NUL) and the spaces or tabs before the value. A folded header's name
    /// is built in memory of its own, away from its value. An empty value is looked at too:
    /// libmicrohttpd points it at the end of its line, and `X-A:` folded onto ` B` is the
    /// name `X-AB` with that empty value.
    @inline(__always)
    static func isOnOneLine(_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool {
        guard let nameStart = name.baseAddress, let valueStart = value.baseAddress else { return true }
        let colon = nameStart + name.count
        guard valueStart > colon else { return false }
        let first = colon.load(as: UInt8.self)
        guard first == 0 || first == UInt8(ascii: ":") else { return false }
        var byte = colon + 1
        while byte < valueStart {
            let blank = byte.load(as: UInt8.self)
            guard blank == UInt8(ascii: " ") || blank == UInt8(ascii: "\t") else { return false }
            byte += 1
        }
        return true
    }

    /// Whether `value` holds a byte below 0x20 other than a tab, or DEL.
    @inline(__always)
    static func holdsControlCharacter(_ value: UnsafeRawBufferPointer) -> Bool {
        value.contains { byte in (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F }
    }

    /// The problem the headers seen so far have whatever their values: a malformed name, a
    /// folded line, a control character in a value, or more than one Host (request
    /// smuggling).
    var problem: RejectionReason? {
        if hasMalformedName || hasFoldedLine || hasControlInValue { return .malformedHeader }
        if hostCount > 1 { return .duplicateHost }
        return nil
    }
}

/// What the first access-handler call learns from the headers.
struct HeaderScan {
    var headers = RequestHeaders()
    var framing = FramingCheck()
    var contentLengths: [String] = []
    var transferEncodings: [String] = []

    /// A framing problem that makes the request unsafe to read (request smuggling, or a
    /// body announced over the limit). `version` is the request line's.
    func framingProblem(maxBodyBytes: Int, version: String) -> RejectionReason? {
        if let problem = framing.problem { return problem }
        if contentLengths.count > 1 { return .duplicateContentLength }
        if !contentLengths.isEmpty && !transferEncodings.isEmpty { return .contentLengthWithTransferEncoding }
        // RFC 9112 section 6.1: an HTTP/1.0 message with Transfer-Encoding has faulty
        // framing (an HTTP/1.0 proxy would not decode it), which libmicrohttpd decodes anyway.
        if !transferEncodings.isEmpty, version.uppercased() != "HTTP/1.1" { return .malformedRequest }
        // As libmicrohttpd reads it: it decodes a chunked body only when the one
        // Transfer-Encoding is `chunked` exactly (in any case). Any other value, `chunked,`
        // or `chunked ` included, would have it take everything that follows on the
        // connection for the body.
        if !transferEncodings.isEmpty, transferEncodings.count != 1 || transferEncodings[0].lowercased() != "chunked" {
            return .unsupportedTransferEncoding
        }
        if let length = contentLengths.first.flatMap({ Int($0.trimmingSpaces()) }), length > maxBodyBytes {
            return .bodyTooLarge
        }
        return nil
    }

    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let scan = cls.assumingMemoryBound(to: HeaderScan.self)
        let name = UnsafeRawBufferPointer(start: key, count: keySize)
        let bytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
        scan.pointee.headers.append(name: name, value: bytes)
        switch scan.pointee.framing.see(name, value: bytes) {
        case .contentLength: scan.pointee.contentLengths.append(String(decoding: bytes, as: UTF8.self))
        case .transferEncoding: scan.pointee.transferEncodings.append(String(decoding: bytes, as: UTF8.self))
        case .host, .other, .malformed: break
        }
        return .YES
    }
}

/// Collects query arguments as sent.
enum QueryScan {
    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let arguments = cls.assumingMemoryBound(to: [(name: String, value: String?)].self)
        let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
        let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
        arguments.pointee.append((name, text))
        return .YES
    }
}
