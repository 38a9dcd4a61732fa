/// A JSON document as a value.
///
/// Tabula reads and writes JSON with its own parser and writer instead of Foundation's:
/// the core must build without Foundation, the service needs bounded nesting and exact
/// errors for hostile input, and the wire encoding must be byte-for-byte deterministic.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name used in error messages ("string", "number", ...).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an `Int` when it is integral and fits; `nil` otherwise.
    public var intValue: Int? {
        guard case .number(let value) = self else { return nil }
        return Int(exactly: value)
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }
}

/// A JSON object that remembers the order its keys were written in.
///
/// Order matters for error messages and for definitions (state keys keep their
/// declared order); lookups are by key. Most objects on the wire have a handful of keys,
/// which a linear search finds faster than hashing; larger ones get an index.
public struct JSONObject: Hashable, Sendable {
    static let largestSearched = 8

    public private(set) var keys: [String] = []
    /// The value of `keys[i]` is `values[i]`.
    private var values: [JSONValue] = []
    /// Positions by key, kept while the object has more than `largestSearched` keys.
    private var positions: [String: Int]?

    public init() {}

    /// Builds an object from pairs; a later duplicate key replaces the earlier value.
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return keys.firstIndex(of: key)
    }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { values[$0] } }
        set {
            switch (position(of: key), newValue) {
            case (let position?, let newValue?):
                values[position] = newValue
            case (nil, let newValue?):
                append(key, newValue)
            case (let position?, nil):
                keys.remove(at: position)
                values.remove(at: position)
                positions = nil
                indexIfLarge()
            case (nil, nil):
                break
            }
        }
    }

    /// Inserts a key that is not present yet; returns `false` (and changes nothing) if it is.
    @discardableResult
    public mutating func insertNew(_ key: String, _ value: JSONValue) -> Bool {
        guard position(of: key) == nil else { return false }
        append(key, value)
        return true
    }

    private mutating func append(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
        if positions != nil {
            positions?[key] = keys.count - 1
        } else {
            indexIfLarge()
        }
    }

    private mutating func indexIfLarge() {
        guard keys.count > Self.largestSearched else { return }
        positions = Dictionary(uniqueKeysWithValues: zip(keys, keys.indices))
    }

    /// Key-value pairs in written order.
    public var pairs: [(key: String, value: JSONValue)] {
        Array(zip(keys, values))
    }

    /// Equal when both have the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs.keys, lhs.values).allSatisfy { key, value in rhs[key] == value }
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, like `==`: the members' hashes are combined commutatively.
        var members = 0
        for (key, value) in zip(keys, values) {
            var member = Hasher()
            member.combine(key)
            member.combine(value)
            members ^= member.finalize()
        }
        hasher.combine(count)
        hasher.combine(members)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
