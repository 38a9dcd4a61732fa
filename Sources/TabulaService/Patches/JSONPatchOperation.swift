import TabulaCore

/// One operation of a JSON Patch document (RFC 6902, section 4).
struct JSONPatchOperation: Sendable, Equatable {
    enum Kind: String, Sendable, CaseIterable {
        case add, remove, replace, move, copy, test
    }

    var kind: Kind
    var path: JSONPointer
    /// `from` of `move` and `copy`.
    var from: JSONPointer?
    /// `value` of `add`, `replace` and `test`.
    var value: JSONValue?

    /// Reads a JSON Patch document: an array of operation objects. Problems name the
    /// operation's index.
    static func document(_ json: JSONValue) throws(Problem) -> [JSONPatchOperation] {
        guard case .array(let elements) = json else {
            throw Problem.invalidBody("a JSON Patch is an array of operations, not \(json.typeName)")
        }
        var operations: [JSONPatchOperation] = []
        for (index, element) in elements.enumerated() {
            operations.append(try operation(element, index: index))
        }
        return operations
    }

    private static func operation(_ json: JSONValue, index: Int) throws(Problem) -> JSONPatchOperation {
        let location = "$[\(index)]"
        guard case .object(let members) = json else {
            throw Problem.invalidBody("\(location): an operation is an object, not \(json.typeName)")
        }
        guard let name = members["op"]?.stringValue, let kind = Kind(rawValue: name) else {
            let ops = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw Problem.invalidBody("\(location).op must be one of \(ops)")
        }
        func pointer(_ member: String) throws(Problem) -> JSONPointer {
            guard let text = members[member]?.stringValue else {
                throw Problem.invalidBody("\(location): a \(name) operation needs \"\(member)\", a JSON Pointer such as \"/networks/0\"")
            }
            guard let pointer = JSONPointer(text) else {
                throw Problem.invalidBody(
                    "\(location).\(member): \"\(text.clippedForDetail)\" is not a JSON Pointer (RFC 6901): \"\" or \"/\"-separated tokens, with ~0 for ~ and ~1 for /"
                )
            }
            // A well-formed pointer, but to a place no document a patch may build has: the
            // patch cannot apply, as a pointer to a missing member cannot.
            guard pointer.tokens.count <= JSONPointer.maxTokens else {
                throw Problem.patchFailed(
                    .unappliable(
                        index: index, path: text,
                        reason:
                            "its \(member) has \(pointer.tokens.count) tokens, and no document a patch may build nests deeper than \(JSONPointer.maxTokens)"
                    ))
            }
            return pointer
        }
        var operation = JSONPatchOperation(kind: kind, path: try pointer("path"))
        switch kind {
        case .add, .replace, .test:
            guard let value = members["value"] else { throw Problem.invalidBody("\(location): a \(name) operation needs \"value\"") }
            operation.value = value
        case .move, .copy:
            operation.from = try pointer("from")
        case .remove:
            break
        }
        // Members the operation does not define are ignored, as RFC 6902 (section 4) says
        // they must be: `{"op": "add", "path": "/wifi", "value": true, "note": "x"}` adds.
        return operation
    }

    /// RFC 6902, section 4: applies the operation to `document` in place. Every value put
    /// into the document is admitted first, so that it stays within its limits.
    func apply(to document: inout PatchedDocument, index: Int) throws(StatePatchError) {
        func failing(_ reason: String, _ pointer: JSONPointer? = nil) -> StatePatchError {
            .unappliable(index: index, path: (pointer ?? path).text, reason: reason)
        }
        func put(_ value: JSONValue) throws(StatePatchError) {
            try document.admit(value, at: path, index: index)
            if let replaced = try path.add(value, to: &document.value, failing) { document.release(replaced) }
        }
        switch kind {
        case .add:
            try put(value ?? .null)
        case .remove:
            document.release(try path.remove(from: &document.value, failing))
        case .replace:
            // The whole state always exists: replacing it is putting a new one in its place.
            if !path.tokens.isEmpty { document.release(try path.remove(from: &document.value, failing)) }
            try put(value ?? .null)
        case .move:
            guard let from else { return }
            if from.isProperPrefix(of: path) { throw failing("a value cannot move into itself, below \(from.text.clippedForDetail)", nil) }
            let moved = try from.remove(from: &document.value, failing)
            document.release(moved)
            try put(moved)
        case .copy:
            guard let from else { return }
            try put(try from.value(in: document.value, failing))
        case .test:
            // A location that does not exist fails as for any operation; only a value that
            // differs fails the test.
            let found = try path.value(in: document.value, failing)
            guard found == value else { throw StatePatchError.testFailed(index: index, path: path.text) }
        }
    }
}
