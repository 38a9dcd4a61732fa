import TabulaCore

/// How large and how deep a document a JSON Patch may build, step by step. Operations
/// are checked as they apply, so that no patch can build what the service cannot walk:
/// `copy` doubles a document each time, and fifteen of them once built a document deep
/// enough to overflow a thread's stack.
struct PatchLimits: Sendable {
    /// The deepest nesting of arrays and objects: the same as a request body's.
    var maxDepth = JSONBody.maxDepth
    /// The largest document, measured as ``measure(_:)`` does.
    var maxBytes: Int

    /// The limits for patches of states bounded by `stateLimits`: an intermediate document
    /// may hold the old and the new state side by side, and some to spare.
    init(_ stateLimits: StateLimits) {
        maxBytes = 4 * stateLimits.maxStateBytes
    }

    /// A value's nesting (0 for a scalar, 1 for a flat array or object) and its size as
    /// JSON without escapes (numbers count 24 bytes). Iterative; it stops and returns
    /// `nil` as soon as the value is deeper than `maxDepth` or larger than `maxBytes`.
    func measure(_ value: JSONValue) -> (depth: Int, bytes: Int)? {
        var pending: [(value: JSONValue, depth: Int)] = [(value, 0)]
        var deepest = 0
        var bytes = 0
        while let (next, depth) = pending.popLast() {
            switch next {
            case .null: bytes += 4
            case .bool: bytes += 5
            case .number: bytes += 24
            case .string(let text): bytes += text.utf8.count + 2
            case .array(let elements):
                bytes += 2 + elements.count
                for element in elements { pending.append((element, depth + 1)) }
                deepest = max(deepest, depth + 1)
            case .object(let members):
                bytes += 2
                for (key, member) in members.pairs {
                    bytes += key.utf8.count + 4
                    pending.append((member, depth + 1))
                }
                deepest = max(deepest, depth + 1)
            }
            if deepest > maxDepth || bytes > maxBytes { return nil }
        }
        return (deepest, bytes)
    }
}

/// A document being patched: the value, and its size as ``PatchLimits/measure(_:)`` counts.
struct PatchedDocument {
    var value: JSONValue
    var bytes: Int
    let limits: PatchLimits

    init(_ value: JSONValue, limits: PatchLimits) throws(StatePatchError) {
        guard let measured = limits.measure(value) else { throw .tooLarge(index: nil, path: "", limits: limits) }
        self.value = value
        bytes = measured.bytes
        self.limits = limits
    }

    /// Counts `value` in before it is put at `pointer`; throws when the document would be
    /// too deep or too large.
    mutating func admit(_ value: JSONValue, at pointer: JSONPointer, index: Int) throws(StatePatchError) {
        guard let measured = limits.measure(value), pointer.tokens.count + measured.depth <= limits.maxDepth,
            bytes + measured.bytes <= limits.maxBytes
        else { throw .tooLarge(index: index, path: pointer.text, limits: limits) }
        bytes += measured.bytes
    }

    /// Counts out a value taken from the document.
    mutating func release(_ value: JSONValue) {
        bytes -= limits.measure(value)?.bytes ?? 0
    }
}
