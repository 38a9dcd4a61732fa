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
    private(set) var hostCount = 0
    /// Whether a Content-Length or Transfer-Encoding header announced a body.
    private(set) var announcesBody = false

    static let contentLength: StaticString = "content-length"
    static let transferEncoding: StaticString = "transfer-encoding"
    static let host: StaticString = "host"

    @inline(__always)
    mutating func see(_ name: UnsafeRawBufferPointer) -> Field {
        if name.isEmpty || !name.allSatisfy(ASCII.isTokenCharacter) {
            hasMalformedName = true
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

    /// The problem the headers seen so far have whatever their values: a malformed name,
    /// or more than one Host (request smuggling).
    var problem: RejectionReason? {
        if hasMalformedName { return .malformedHeader }
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
    /// body announced over the limit).
    func framingProblem(maxBodyBytes: Int) -> RejectionReason? {
        if let problem = framing.problem { return problem }
        if contentLengths.count > 1 { return .duplicateContentLength }
        if !contentLengths.isEmpty && !transferEncodings.isEmpty { return .contentLengthWithTransferEncoding }
        if !transferEncodings.isEmpty {
            let codings = transferEncodings.joined(separator: ",").split(separator: ",")
                .map { $0.trimmingSpaces().lowercased() }
            if codings != ["chunked"] { return .unsupportedTransferEncoding }
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
        switch scan.pointee.framing.see(name) {
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
