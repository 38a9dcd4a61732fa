/// The state of one session: the values of the catalogue's state keys and the session's
/// revision, which every state-changing event raises by exactly one.
public struct SessionState: Hashable, Sendable {
    public var revision: Int
    public var values: [String: StateValue]

    public init(revision: Int = 0, values: [String: StateValue] = [:]) {
        self.revision = revision
        self.values = values
    }

    /// A scalar key's value, or `nil` when the key is missing or is a list.
    public func scalar(_ key: String) -> FieldValue? {
        values[key]?.scalar
    }

    /// A list key's records; empty when the key is missing or not a list.
    public func records(_ key: String) -> [Record] {
        values[key]?.records ?? []
    }

    /// The values as one JSON object (keys in ascending byte order when written).
    public var valuesJSON: JSONValue {
        var object = JSONObject()
        for key in values.keys.sorted() {
            if let value = values[key] { object[key] = value.json }
        }
        return .object(object)
    }
}
