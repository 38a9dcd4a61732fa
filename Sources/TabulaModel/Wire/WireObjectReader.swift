/// Reads the members of one JSON object, remembering which it has read, so that unknown
/// members can be reported by name.
struct WireObjectReader {
    let object: JSONObject
    let path: String
    private var consumed: Set<String> = []

    init(_ value: JSONValue, path: String) throws(WireFormatError) {
        guard case .object(let object) = value else {
            throw WireFormatError(path: path, problem: .wrongType(expected: "an object", found: value.typeName))
        }
        self.object = object
        self.path = path
    }

    func memberPath(_ key: String) -> String { "\(path).\(key)" }

    /// The member's value, or `nil` when it is absent or `null`.
    mutating func optional(_ key: String) -> JSONValue? {
        consumed.insert(key)
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    mutating func required(_ key: String) throws(WireFormatError) -> JSONValue {
        guard let value = optional(key) else {
            throw WireFormatError(path: path, problem: .missingField(key))
        }
        return value
    }

    mutating func string(_ key: String) throws(WireFormatError) -> String {
        try Self.string(try required(key), path: memberPath(key))
    }

    mutating func optionalString(_ key: String) throws(WireFormatError) -> String? {
        guard let value = optional(key) else { return nil }
        return try Self.string(value, path: memberPath(key))
    }

    mutating func bool(_ key: String) throws(WireFormatError) -> Bool {
        try Self.bool(try required(key), path: memberPath(key))
    }

    mutating func optionalBool(_ key: String) throws(WireFormatError) -> Bool? {
        guard let value = optional(key) else { return nil }
        return try Self.bool(value, path: memberPath(key))
    }

    mutating func optionalNumber(_ key: String) throws(WireFormatError) -> Double? {
        guard let value = optional(key) else { return nil }
        guard case .number(let number) = value else {
            throw WireFormatError(path: memberPath(key), problem: .wrongType(expected: "a number", found: value.typeName))
        }
        return number
    }

    mutating func nonNegativeInt(_ key: String) throws(WireFormatError) -> Int {
        try Self.nonNegativeInt(try required(key), path: memberPath(key))
    }

    mutating func array(_ key: String) throws(WireFormatError) -> [JSONValue] {
        let value = try required(key)
        guard case .array(let elements) = value else {
            throw WireFormatError(path: memberPath(key), problem: .wrongType(expected: "an array", found: value.typeName))
        }
        return elements
    }

    mutating func enumeration<Value: RawRepresentable & CaseIterable>(
        _ key: String, as type: Value.Type
    ) throws(WireFormatError) -> Value? where Value.RawValue == String {
        guard let raw = try optionalString(key) else { return nil }
        guard let value = Value(rawValue: raw) else {
            throw WireFormatError(
                path: memberPath(key), problem: .invalidValue(raw, allowed: Value.allCases.map(\.rawValue)))
        }
        return value
    }

    /// Members not read yet, in written order.
    var unread: [(key: String, value: JSONValue)] {
        object.pairs.filter { !consumed.contains($0.key) }
    }

    /// Throws for the first member that was never read.
    func rejectUnread() throws(WireFormatError) {
        if let first = unread.first {
            throw WireFormatError(path: path, problem: .unknownField(first.key))
        }
    }

    static func string(_ value: JSONValue, path: String) throws(WireFormatError) -> String {
        guard case .string(let text) = value else {
            throw WireFormatError(path: path, problem: .wrongType(expected: "a string", found: value.typeName))
        }
        return text
    }

    static func bool(_ value: JSONValue, path: String) throws(WireFormatError) -> Bool {
        guard case .bool(let flag) = value else {
            throw WireFormatError(path: path, problem: .wrongType(expected: "a boolean", found: value.typeName))
        }
        return flag
    }

    static func nonNegativeInt(_ value: JSONValue, path: String) throws(WireFormatError) -> Int {
        guard case .number(let number) = value else {
            throw WireFormatError(path: path, problem: .wrongType(expected: "a number", found: value.typeName))
        }
        guard let integer = Int(exactly: number) else { throw WireFormatError(path: path, problem: .notAnInteger) }
        guard integer >= 0 else { throw WireFormatError(path: path, problem: .negativeNumber) }
        return integer
    }

    static func fieldValue(_ value: JSONValue, path: String) throws(WireFormatError) -> FieldValue {
        switch value {
        case .string(let text): return .string(text)
        case .number(let number): return .number(number)
        case .bool(let flag): return .bool(flag)
        default:
            throw WireFormatError(
                path: path, problem: .wrongType(expected: "a string, number or boolean", found: value.typeName))
        }
    }
}

extension JSONValue {
    /// Parses wire-model bytes, reporting a parse failure as a ``WireFormatError`` at `$`.
    static func parseWire(_ bytes: [UInt8]) throws(WireFormatError) -> JSONValue {
        do {
            return try JSONParser().parse(bytes)
        } catch {
            throw WireFormatError(path: "$", problem: .invalidJSON(error))
        }
    }
}
