internal import CMicroHTTPD

/// What the first access-handler call learns from the headers.
struct HeaderScan {
    var headers = RequestHeaders()
    var contentLengths: [String] = []
    var transferEncodings: [String] = []
    var hostCount = 0
    var hasMalformedName = false

    /// A framing problem that makes the request unsafe to read (request smuggling, or a
    /// body announced over the limit).
    func framingProblem(maxBodyBytes: Int) -> RejectionReason? {
        if hasMalformedName { return .malformedHeader }
        if hostCount > 1 { return .duplicateHost }
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

    static let contentLength: StaticString = "content-length"
    static let transferEncoding: StaticString = "transfer-encoding"
    static let host: StaticString = "host"

    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let scan = cls.assumingMemoryBound(to: HeaderScan.self)
        let name = UnsafeRawBufferPointer(start: key, count: keySize)
        let bytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
        scan.pointee.headers.append(name: name, value: bytes)
        if name.isEmpty || !name.allSatisfy(ASCII.isTokenCharacter) {
            scan.pointee.hasMalformedName = true
        } else if ASCII.equalIgnoringCase(name, host) {
            scan.pointee.hostCount += 1
        } else if ASCII.equalIgnoringCase(name, contentLength) {
            scan.pointee.contentLengths.append(String(decoding: bytes, as: UTF8.self))
        } else if ASCII.equalIgnoringCase(name, transferEncoding) {
            scan.pointee.transferEncodings.append(String(decoding: bytes, as: UTF8.self))
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
