/// The state of one session: the values of the catalogue's state keys, the session's
/// client, and the session's revision, which every state-changing event raises by exactly
/// one.
public struct SessionState: Hashable, Sendable {
    public var revision: Int
    public var values: [String: StateValue] {
        didSet { conformsTo = nil }
    }
    /// The language and kinds the session's screens render for.
    public var client: ClientContext
    /// Which input rows are touched, and what secure fields' values came to.
    public var marks = FormMarks()
    /// The ``DefinitionDocument/fingerprint`` of a definition whose declarations the values
    /// are known to conform to, so that reading them through it costs no lookups (see
    /// `Conformance.swift`). Not part of the value: equality and hashing leave it out, and
    /// any change of `values` clears it.
    var conformsTo: UInt64?

    public init(revision: Int = 0, values: [String: StateValue] = [:], client: ClientContext = .unspecified) {
        self.revision = revision
        self.values = values
        self.client = client
    }

    public static func == (lhs: SessionState, rhs: SessionState) -> Bool {
        lhs.revision == rhs.revision && lhs.values == rhs.values && lhs.client == rhs.client && lhs.marks == rhs.marks
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(revision)
        hasher.combine(values)
        hasher.combine(client)
        hasher.combine(marks)
    }

    /// A scalar key's value, or `nil` when the key is missing or is a list.
    public func scalar(_ key: String) -> FieldValue? {
        values[key]?.scalar
    }

    /// A list key's records; empty when the key is missing or not a list.
    public func records(_ key: String) -> [Record] {
        values[key]?.records ?? []
    }

    /// The keys whose values differ from `other`'s: changed, added or removed.
    public func changedKeys(since other: SessionState) -> Set<String> {
        var changed: Set<String> = []
        forEachChangedKey(since: other) { changed.insert($0) }
        return changed
    }

    /// Calls `body` with each key whose value differs from `other`'s, once per key, without
    /// building a set.
    public func forEachChangedKey(since other: SessionState, _ body: (String) -> Void) {
        // A state made from another by setting keys keeps its dictionary's layout, so the
        // two usually list their keys in the same order: walking them in step then settles
        // every key without hashing one. Any difference in order falls back to lookups.
        if values.count == other.values.count, values.keys.elementsEqual(other.values.keys) {
            var theirs = other.values.startIndex
            for (key, value) in values {
                if value != other.values.values[theirs] { body(key) }
                other.values.formIndex(after: &theirs)
            }
            return
        }
        for (key, value) in values where StateValue.differ(value, other.values[key]) { body(key) }
        for key in other.values.keys where values[key] == nil { body(key) }
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
