public import HTTPTypes

/// A request's headers as sent, kept in one buffer. Lookups compare bytes, case-insensitively,
/// without building strings; ``fields`` converts to swift-http-types on demand.
public struct RequestHeaders: Sendable {
    private var storage: [UInt8] = []
    private var entries: [(nameStart: Int, nameLength: Int, valueStart: Int, valueLength: Int)] = []

    public init() {}

    /// Builds headers from (name, value) pairs.
    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { append(name: Array(name.utf8), value: Array(value.utf8)) }
    }

    mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        if entries.isEmpty { storage.reserveCapacity(256) }
        let nameStart = storage.count
        storage.append(contentsOf: name)
        let valueStart = storage.count
        storage.append(contentsOf: value)
        entries.append((nameStart, name.count, valueStart, value.count))
    }

    mutating func append(name: [UInt8], value: [UInt8]) {
        name.withUnsafeBytes { nameBytes in value.withUnsafeBytes { append(name: nameBytes, value: $0) } }
    }

    public var count: Int { entries.count }

    /// The first value of a header, or `nil`.
    public func value(_ name: String) -> String? {
        index(of: name, after: -1).map(value(at:))
    }

    /// Every value of a header, in order.
    public func values(_ name: String) -> [String] {
        var result: [String] = []
        var index = -1
        while let found = self.index(of: name, after: index) {
            result.append(value(at: found))
            index = found
        }
        return result
    }

    /// The headers as swift-http-types fields (names that are not valid tokens are left out).
    public var fields: HTTPFields {
        var fields = HTTPFields()
        for entry in entries.indices {
            let name = String(decoding: storage[entries[entry].nameStart..<entries[entry].nameStart + entries[entry].nameLength], as: UTF8.self)
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value(at: entry))) }
        }
        return fields
    }

    private func value(at entry: Int) -> String {
        let start = entries[entry].valueStart
        return String(decoding: storage[start..<start + entries[entry].valueLength], as: UTF8.self)
    }

    private func index(of name: String, after previous: Int) -> Int? {
        var name = name
        return name.withUTF8 { wanted -> Int? in
            var candidate = previous + 1
            while candidate < entries.count {
                let entry = entries[candidate]
                if entry.nameLength == wanted.count && Self.equalIgnoringCase(storage, entry.nameStart, wanted) { return candidate }
                candidate += 1
            }
            return nil
        }
    }

    private static func equalIgnoringCase(_ storage: [UInt8], _ start: Int, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        for offset in 0..<wanted.count where ASCII.lowercased(storage[start + offset]) != ASCII.lowercased(wanted[offset]) {
            return false
        }
        return true
    }
}

/// ASCII case folding for header names.
enum ASCII {
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}
