/// The state keys of a catalogue: every key any screen declares, with its type and default.
public struct StateSchema: Hashable, Sendable {
    /// Keys in the order they were first declared.
    public private(set) var keys: [String] = []
    public private(set) var declarations: [String: StateDeclaration] = [:]

    public init() {}

    /// Adds a declaration; returns the existing one instead when the key is already
    /// declared differently (and changes nothing).
    mutating func add(_ key: String, _ declaration: StateDeclaration) -> StateDeclaration? {
        if let existing = declarations[key] {
            return existing == declaration ? nil : existing
        }
        keys.append(key)
        declarations[key] = declaration
        return nil
    }

    public var types: [String: StateType] {
        declarations.mapValues(\.type)
    }

    /// Every key at its default, at revision 0.
    public var initialState: SessionState {
        SessionState(revision: 0, values: declarations.mapValues(\.defaultValue))
    }

    /// Reads state values from a JSON object: keys it names take the given value (checked
    /// against their type), the others keep their default.
    public func state(from json: JSONValue, revision: Int = 0) throws(StateDecodingError) -> SessionState {
        guard case .object(let object) = json else {
            throw StateDecodingError(path: "$", message: "expected an object of state keys, found \(json.typeName)")
        }
        var state = initialState
        state.revision = revision
        for (key, value) in object.pairs {
            guard let declaration = declarations[key] else {
                let known = keys.joined(separator: ", ")
                throw StateDecodingError(path: "$.\(key)", message: "unknown state key; declared keys: \(known.isEmpty ? "none" : known)")
            }
            var firstProblem: StateDecodingError?
            let decoded = declaration.type.decode(value, path: "$.\(key)") { path, message in
                if firstProblem == nil { firstProblem = StateDecodingError(path: path, message: message) }
            }
            if let firstProblem { throw firstProblem }
            if let decoded { state.values[key] = decoded }
        }
        return state
    }
}

extension SessionState {
    /// Reads values as stores save them (``valuesBytes``), without a schema: whatever
    /// version of the definitions wrote them, every key is kept as it was stored (each
    /// definition reads them ``ScreenDefinition/conformed(_:)``). A value is a scalar, or a
    /// list of records (objects with a string `id` and scalar fields). Anything else was
    /// never written by Tabula: the stored state is damaged, and reading it throws rather
    /// than pass it off as defaults.
    public init(storedValues json: JSONValue, revision: Int) throws(StateDecodingError) {
        self.init(revision: revision)
        guard case .object(let object) = json else {
            throw StateDecodingError(path: "$", message: "a stored state is an object, not \(json.typeName)")
        }
        for (key, value) in object.pairs {
            if key == Self.clientKey {
                client = try ClientContext(stored: value, path: "$.\(key)")
            } else if key == Self.marksKey {
                marks = try FormMarks(stored: value, path: "$.\(key)")
            } else {
                values[key] = try StateValue(stored: value, path: "$.\(key)")
            }
        }
    }

    /// Where stores keep the ``client`` among the values: no state key starts with `$`.
    static let clientKey = "$client"
    /// Where stores keep the ``marks``; `$client` sorts before it.
    static let marksKey = "$form"

    /// The values as canonical JSON bytes, as stores save them (the revision is kept apart),
    /// with the client context and the form marks under `$` keys when they are not empty:
    /// for a state with neither, the same bytes as `valuesJSON.canonicalBytes`.
    public var valuesBytes: [UInt8] {
        valuesBytes { _, records in Self.listBytes(records) }
    }

    /// ``valuesBytes``, taking each list's bytes from `list(key, records)`, which must answer
    /// ``listBytes(_:)`` of the records: a caller that remembers the lists it encoded before
    /// writes them without walking them again.
    public func valuesBytes(encodingLists list: (String, [Record]) -> [UInt8]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256)
        writer.beginObject()
        // `$` sorts before every key a definition can declare.
        if client != .unspecified {
            writer.key(Self.clientKey)
            writer.rawValue(client.json.canonicalBytes)
        }
        if !marks.isEmpty {
            writer.key(Self.marksKey)
            writer.write(marks.json)
        }
        for (key, value) in values.sorted(by: { $0.key.utf8Precedes($1.key) }) {
            writer.key(key)
            switch value {
            case .scalar(let scalar): writer.write(scalar)
            case .list(let records): writer.rawValue(list(key, records))
            }
        }
        writer.endObject()
        return writer.bytes
    }

    /// A list as a JSON array of objects, each record's `id` among its fields in key order.
    public static func listBytes(_ records: [Record]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64 * records.count + 2)
        writer.array(records) { writer, record in
            writer.beginObject()
            var placedID = false
            for (name, field) in record.fields.sorted(by: { $0.key.utf8Precedes($1.key) }) {
                if !placedID && "id".utf8Precedes(name) {
                    writer.key("id"); writer.string(record.id)
                    placedID = true
                }
                writer.key(name)
                writer.write(field)
            }
            if !placedID { writer.key("id"); writer.string(record.id) }
            writer.endObject()
        }
        return writer.bytes
    }
}

/// Why a JSON document is not a valid state for a schema, and where.
public struct StateDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
