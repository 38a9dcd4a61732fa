public import HTTPTypes

/// A request's headers as sent, kept in one buffer (one allocation per request): each
/// header is its name's and value's lengths (4 bytes each) followed by their bytes. Lookups
/// compare bytes, case-insensitively, without building strings; ``fields`` converts to
/// swift-http-types on demand.
public struct RequestHeaders: Sendable {
    private var storage: [UInt8] = []
    /// The number of headers.
    public private(set) var count = 0

    public init() {}

    /// Builds headers from (name, value) pairs.
    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { append(name: Array(name.utf8), value: Array(value.utf8)) }
    }

    /// Keeps a header; its value without the spaces and tabs after it (RFC 9110 section 5.5:
    /// they are not part of the value; libmicrohttpd drops only those before it).
    mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        var end = value.count
        while end > 0 && (value[end - 1] == 0x20 || value[end - 1] == 0x09) { end -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: value[..<end])
        if count == 0 { storage.reserveCapacity(256) }
        Self.appendLength(name.count, to: &storage)
        Self.appendLength(value.count, to: &storage)
        // Typed buffers, so that the appends are plain copies.
        storage.append(contentsOf: name.assumingMemoryBound(to: UInt8.self))
        storage.append(contentsOf: value.assumingMemoryBound(to: UInt8.self))
        count += 1
    }

    mutating func append(name: [UInt8], value: [UInt8]) {
        name.withUnsafeBytes { nameBytes in value.withUnsafeBytes { append(name: nameBytes, value: $0) } }
    }

    private static func appendLength(_ length: Int, to storage: inout [UInt8]) {
        let value = UInt32(clamping: length)
        storage.append(UInt8(truncatingIfNeeded: value))
        storage.append(UInt8(truncatingIfNeeded: value >> 8))
        storage.append(UInt8(truncatingIfNeeded: value >> 16))
        storage.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    /// The first value of a header, or `nil`.
    public func value(_ name: String) -> String? {
        var found: String?
        forEach(named: name) { value in
            found = String(decoding: value, as: UTF8.self)
            return false
        }
        return found
    }

    /// The value of a header sent once: `.absent`, `.one(value)`, or `.repeated` when the
    /// header came more than once.
    public func single(_ name: String) -> SingleValue {
        var first: String?
        var seen = 0
        forEach(named: name) { value in
            seen += 1
            if seen == 1 { first = String(decoding: value, as: UTF8.self) }
            return true
        }
        switch seen {
        case 0: return .absent
        case 1: return first.map { .one($0) } ?? .absent
        default: return .repeated(count: seen)
        }
    }

    /// See ``single(_:)``.
    public enum SingleValue: Equatable, Sendable {
        case absent
        case one(String)
        case repeated(count: Int)
    }

    /// Every value of a header, in order.
    public func values(_ name: String) -> [String] {
        var result: [String] = []
        forEach(named: name) { value in
            result.append(String(decoding: value, as: UTF8.self))
            return true
        }
        return result
    }

    /// The headers as swift-http-types fields (names that are not valid tokens are left out).
    public var fields: HTTPFields {
        var fields = HTTPFields()
        forEachHeaderWhile { name, value in
            if let fieldName = HTTPField.Name(String(decoding: name, as: UTF8.self)) {
                fields.append(HTTPField(name: fieldName, value: String(decoding: value, as: UTF8.self)))
            }
            return true
        }
        return fields
    }

    /// Calls `body` with each value of the header `name` until it returns false.
    private func forEach(named name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        var name = name
        name.withUTF8 { wanted in
            forEachHeaderWhile { headerName, value in
                guard Self.equalIgnoringCase(headerName, wanted) else { return true }
                return body(value)
            }
        }
    }

    /// Calls `body` with each header's name and value as sent, in order.
    public func forEachHeader(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        forEachHeaderWhile { name, value in
            body(UnsafeRawBufferPointer(name), UnsafeRawBufferPointer(value))
            return true
        }
    }

    /// Calls `body` with each header's name and value, in order, until it returns false.
    private func forEachHeaderWhile(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        storage.withUnsafeBufferPointer { bytes in
            var offset = 0
            while offset + 8 <= bytes.count {
                let nameLength = Self.length(bytes, at: offset)
                let valueLength = Self.length(bytes, at: offset + 4)
                let nameStart = offset + 8
                let valueStart = nameStart + nameLength
                offset = valueStart + valueLength
                guard offset <= bytes.count else { return }
                let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<valueStart])
                let value = UnsafeBufferPointer(rebasing: bytes[valueStart..<offset])
                guard body(name, value) else { return }
            }
        }
    }

    private static func length(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
    }

    private static func equalIgnoringCase(_ name: UnsafeBufferPointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count == wanted.count else { return false }
        for offset in 0..<wanted.count where ASCII.lowercased(name[offset]) != ASCII.lowercased(wanted[offset]) {
            return false
        }
        return true
    }
}

/// ASCII case folding for header names and for the case-insensitive parts of values
/// (media types, authorization schemes).
public enum ASCII {
    /// Whether `bytes` spell `lowercase` (lowercase ASCII) in any case. Inlined, so that the
    /// length test, which settles most comparisons of header names, costs no call.
    @inline(__always)
    public static func equalIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let wanted = lowercase.utf8Start
        for index in 0..<bytes.count where Self.lowercased(bytes[index]) != wanted[index] { return false }
        return true
    }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// RFC 9110 `tchar`: what a header name may be made of.
    @inline(__always)
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        // ! # $ % & ' * + - . ^ _ ` | ~
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E...0x60, 0x7C, 0x7E:
            true
        default:
            false
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    public func trimmingSpaces() -> String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
