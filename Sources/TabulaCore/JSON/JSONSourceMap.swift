/// A place in a text: one-based line, and one-based column counted in Unicode scalars, as
/// editors count them.
public struct SourcePosition: Hashable, Sendable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// Finds where a value named by a JSON path (`$`, `.member`, `["member"]`, `[index]`, as definition
/// problems write them) sits in a document's text, so that a problem can point an editor
/// at it. Only asked for problems: it scans the text again rather than have every parse
/// keep positions.
public enum JSONSourceMap {
    /// The position of the value at `path` in `bytes` (which must parse as JSON), or of the
    /// deepest value on the path that exists. With `character`, the position of that
    /// one-based character inside the value, when the value is a string (escapes count as
    /// the one character they stand for).
    public static func position(of path: String, in bytes: [UInt8], character: Int? = nil) -> SourcePosition {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        for component in components(of: path) {
            guard scanner.enter(component) else { break }
        }
        if let character, character > 1 { scanner.advanceInString(by: character - 1) }
        return scanner.position
    }

    enum Component: Equatable {
        case member([UInt8])
        case index(Int)
    }

    static func components(of path: String) -> [Component] {
        var bytes = Array(path.utf8)[...]
        guard bytes.first == UInt8(ascii: "$") else { return [] }
        bytes = bytes.dropFirst()
        var components: [Component] = []
        while let first = bytes.first {
            bytes = bytes.dropFirst()
            if first == UInt8(ascii: ".") {
                let name = bytes.prefix { $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "[") }
                components.append(.member(Array(name)))
                bytes = bytes.dropFirst(name.count)
            } else if first == UInt8(ascii: "["), bytes.first == UInt8(ascii: "\"") {
                // `["name"]`, for a member whose name has dots (a message key).
                let name = bytes.dropFirst().prefix { $0 != UInt8(ascii: "\"") }
                components.append(.member(Array(name)))
                bytes = bytes.dropFirst(name.count + 3)
            } else if first == UInt8(ascii: "[") {
                let digits = bytes.prefix { $0 != UInt8(ascii: "]") }
                guard let index = Int(String(decoding: digits, as: UTF8.self)) else { return components }
                components.append(.index(index))
                bytes = bytes.dropFirst(digits.count + 1)
            } else {
                return components
            }
        }
        return components
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var position: SourcePosition {
            var line = 1
            var lineStart = 0
            for offset in 0..<min(index, bytes.count) where bytes[offset] == UInt8(ascii: "\n") {
                line += 1
                lineStart = offset + 1
            }
            // Continuation bytes (10xxxxxx) do not start a character.
            let characters = bytes[lineStart..<min(index, bytes.count)].count { $0 & 0xC0 != 0x80 }
            return SourcePosition(line: line, column: characters + 1)
        }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        /// Moves to the value of `component` in the container at the cursor; `false` (the
        /// cursor still at the container) when there is none.
        mutating func enter(_ component: Component) -> Bool {
            let start = index
            switch component {
            case .member(let name):
                guard current == UInt8(ascii: "{") else { return false }
                index += 1
                while true {
                    skipWhitespace()
                    guard current == UInt8(ascii: "\"") else { break }
                    let keyStart = index + 1
                    skipString()
                    let key = bytes[keyStart..<max(keyStart, index - 1)]
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { break }
                    index += 1
                    skipWhitespace()
                    if key.elementsEqual(name) { return true }
                    skipValue()
                    skipWhitespace()
                    guard current == UInt8(ascii: ",") else { break }
                    index += 1
                }
            case .index(let wanted):
                guard current == UInt8(ascii: "[") else { return false }
                index += 1
                var position = 0
                while true {
                    skipWhitespace()
                    guard let byte = current, byte != UInt8(ascii: "]") else { break }
                    if position == wanted { return true }
                    skipValue()
                    skipWhitespace()
                    guard current == UInt8(ascii: ",") else { break }
                    index += 1
                    position += 1
                }
            }
            index = start
            return false
        }

        /// Past the string at the cursor, its closing quote included.
        mutating func skipString() {
            index += 1
            while let byte = current {
                index += byte == UInt8(ascii: "\\") ? 2 : 1
                if byte == UInt8(ascii: "\"") { return }
            }
        }

        /// Past the value at the cursor.
        mutating func skipValue() {
            var depth = 0
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    skipString()
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    index += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard depth > 0 else { return }
                    depth -= 1
                    index += 1
                case UInt8(ascii: ","), 0x20, 0x0A, 0x0D, 0x09:
                    guard depth > 0 else { return }
                    index += 1
                default:
                    index += 1
                }
                if depth == 0 && (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")) { return }
            }
        }

        /// From a string's opening quote to its `count`th character after the first.
        mutating func advanceInString(by count: Int) {
            guard current == UInt8(ascii: "\"") else { return }
            index += 1
            var remaining = count
            while remaining > 0, let byte = current, byte != UInt8(ascii: "\"") {
                if byte == UInt8(ascii: "\\") {
                    // \uXXXX is one character, and so is a surrogate pair of them
                    // (\uD83D\uDE00, a character past U+FFFF); every other escape is two bytes.
                    if let unit = escapedUnit(at: index) {
                        let pairs = (0xD800...0xDBFF).contains(unit) && escapedUnit(at: index + 6).map { (0xDC00...0xDFFF).contains($0) } == true
                        index += pairs ? 12 : 6
                    } else {
                        index += 2
                    }
                } else {
                    index += 1
                    while let next = current, next & 0xC0 == 0x80 { index += 1 }
                }
                remaining -= 1
            }
        }

        /// The code unit of a `\uXXXX` escape starting at `offset`; `nil` for anything else.
        private func escapedUnit(at offset: Int) -> UInt16? {
            guard offset + 6 <= bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else { return nil }
            return UInt16(String(decoding: bytes[offset + 2..<offset + 6], as: UTF8.self), radix: 16)
        }
    }
}
