import TabulaCore

/// A change the backend asks of a session's state: a JSON Merge Patch (RFC 7396), a JSON
/// Patch (RFC 6902), or a whole new state (`PUT`). Applied to the state's values as a JSON
/// object, all or nothing.
enum StatePatch: Sendable {
    /// `application/merge-patch+json`: members replace, `null` removes (the key then takes
    /// its default), objects merge.
    case merge(JSONValue)
    /// `application/json-patch+json`: operations in order, each on the result of the last.
    case operations([JSONPatchOperation])
    /// `PUT`: the state's declared keys, the others at their defaults.
    case replace(JSONValue)

    /// The values after the patch, from `values` (a JSON object of the current state).
    /// JSON Patch operations are checked against `limits` as they apply; a merge patch and
    /// a whole state are bodies, no deeper than a body may be, and a merge nests no deeper
    /// than its patch and target.
    func apply(to values: JSONValue, limits: PatchLimits) throws(StatePatchError) -> JSONValue {
        switch self {
        case .merge(let patch):
            return Self.merge(patch, into: values)
        case .operations(let operations):
            var document = try PatchedDocument(values, limits: limits)
            for (index, operation) in operations.enumerated() {
                try operation.apply(to: &document, index: index)
            }
            return document.value
        case .replace(let state):
            return state
        }
    }

    /// RFC 7396, section 2.
    static func merge(_ patch: JSONValue, into target: JSONValue) -> JSONValue {
        guard case .object(let members) = patch else { return patch }
        var result = target.objectValue ?? JSONObject()
        for (key, value) in members.pairs {
            if value == .null {
                result[key] = nil
            } else {
                result[key] = merge(value, into: result[key] ?? .null)
            }
        }
        return .object(result)
    }
}

/// Why a patch could not be applied; nothing was changed.
enum StatePatchError: Error, Sendable, Equatable {
    /// A `test` operation found another value (409).
    case testFailed(index: Int, path: String)
    /// An operation names a location that does not exist, or cannot (422).
    case unappliable(index: Int, path: String, reason: String)
    /// The document would nest deeper or grow larger than `limits` allow (422); `index`
    /// is `nil` when the state itself is over them.
    case tooLarge(index: Int?, path: String, limits: PatchLimits)

    static func == (lhs: StatePatchError, rhs: StatePatchError) -> Bool {
        switch (lhs, rhs) {
        case (.testFailed(let a, let b), .testFailed(let c, let d)): a == c && b == d
        case (.unappliable(let a, let b, let c), .unappliable(let d, let e, let f)): a == d && b == e && c == f
        case (.tooLarge(let a, let b, _), .tooLarge(let c, let d, _)): a == c && b == d
        default: false
        }
    }
}
