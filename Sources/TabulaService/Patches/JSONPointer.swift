import TabulaCore

/// A JSON Pointer (RFC 6901): `""` for the whole document, else `/`-separated reference
/// tokens with `~1` for `/` and `~0` for `~`.
struct JSONPointer: Sendable, Equatable {
    let text: String
    let tokens: [String]

    /// The most tokens a patch's pointers may have: no document a patch may build nests
    /// deeper (``PatchLimits``).
    static let maxTokens = JSONBody.maxDepth

    /// `nil` when `text` is not a pointer: neither empty nor starting with `/`, or with a
    /// `~` not followed by `0` or `1`.
    init?(_ text: String) {
        guard text.isEmpty || text.hasPrefix("/") else { return nil }
        var tokens: [String] = []
        for part in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) where !text.isEmpty {
            guard let token = Self.unescape(part) else { return nil }
            tokens.append(token)
        }
        self.text = text
        self.tokens = tokens
    }

    private static func unescape(_ part: Substring) -> String? {
        var token = ""
        var escaping = false
        for character in part {
            if escaping {
                switch character {
                case "0": token.append("~")
                case "1": token.append("/")
                default: return nil
                }
                escaping = false
            } else if character == "~" {
                escaping = true
            } else {
                token.append(character)
            }
        }
        return escaping ? nil : token
    }

    func isProperPrefix(of other: JSONPointer) -> Bool {
        tokens.count < other.tokens.count && Array(other.tokens.prefix(tokens.count)) == tokens
    }

    typealias Failure = (String, JSONPointer?) -> StatePatchError

    /// The value the pointer names.
    func value(in document: JSONValue, _ failing: Failure) throws(StatePatchError) -> JSONValue {
        var current = document
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { throw failing("there is no member \"\(token.clippedForDetail)\"", self) }
                current = next
            case .array(let elements):
                guard let position = Self.index(token, count: elements.count), position < elements.count else {
                    throw failing("there is no element \"\(token.clippedForDetail)\" in a list of \(elements.count)", self)
                }
                current = elements[position]
            default:
                throw failing("a \(current.typeName) has no members", self)
            }
        }
        return current
    }

    /// Adds (or, in an object, replaces) the value at the pointer; in a list, `-` appends.
    /// Returns the value it replaced, if any.
    func add(_ value: JSONValue, to document: inout JSONValue, _ failing: Failure) throws(StatePatchError) -> JSONValue? {
        guard let last = tokens.last else {
            defer { document = value }
            return document
        }
        var replaced: JSONValue?
        try Self.update(&document, along: tokens.dropLast()[...], failing, self) { (parent) throws(StatePatchError) in
            switch parent {
            case .object(var members):
                replaced = members[last]
                members[last] = value
                parent = .object(members)
            case .array(var elements):
                let position = last == "-" ? elements.count : Self.index(last, count: elements.count + 1)
                guard let position, position <= elements.count else {
                    throw failing("\"\(last.clippedForDetail)\" is not a position in a list of \(elements.count) (0…\(elements.count) or -)", self)
                }
                elements.insert(value, at: position)
                parent = .array(elements)
            default:
                throw failing("a \(parent.typeName) has no members", self)
            }
        }
        return replaced
    }

    /// Removes the value at the pointer and returns it.
    func remove(from document: inout JSONValue, _ failing: Failure) throws(StatePatchError) -> JSONValue {
        guard let last = tokens.last else { throw failing("the whole state cannot be removed", self) }
        var removed = JSONValue.null
        try Self.update(&document, along: tokens.dropLast()[...], failing, self) { (parent) throws(StatePatchError) in
            switch parent {
            case .object(var members):
                guard let value = members[last] else { throw failing("there is no member \"\(last.clippedForDetail)\"", self) }
                removed = value
                members[last] = nil
                parent = .object(members)
            case .array(var elements):
                guard let position = Self.index(last, count: elements.count), position < elements.count else {
                    throw failing("there is no element \"\(last.clippedForDetail)\" in a list of \(elements.count)", self)
                }
                removed = elements.remove(at: position)
                parent = .array(elements)
            default:
                throw failing("a \(parent.typeName) has no members", self)
            }
        }
        return removed
    }

    /// Runs `body` on the value `path` leads to inside `document`, writing it back.
    private static func update(
        _ document: inout JSONValue, along path: ArraySlice<String>, _ failing: Failure, _ pointer: JSONPointer,
        _ body: (inout JSONValue) throws(StatePatchError) -> Void
    ) throws(StatePatchError) {
        guard let token = path.first else { return try body(&document) }
        switch document {
        case .object(var members):
            guard var child = members[token] else { throw failing("there is no member \"\(token.clippedForDetail)\"", pointer) }
            try update(&child, along: path.dropFirst(), failing, pointer, body)
            members[token] = child
            document = .object(members)
        case .array(var elements):
            guard let position = index(token, count: elements.count), position < elements.count else {
                throw failing("there is no element \"\(token.clippedForDetail)\" in a list of \(elements.count)", pointer)
            }
            try update(&elements[position], along: path.dropFirst(), failing, pointer, body)
            document = .array(elements)
        default:
            throw failing("a \(document.typeName) has no members", pointer)
        }
    }

    /// An array index token: `0` or digits without a leading zero.
    private static func index(_ token: String, count: Int) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            token == "0" || !token.hasPrefix("0"), token.utf8.count <= 9
        else { return nil }
        return Int(token)
    }
}
