/// A `pattern` rule of the plainest kind, matched over bytes: a sequence of single-character
/// atoms, each with a greedy count. It answers what Swift's `Regex` answers, for the
/// patterns it takes and the values it takes; `PatternRule` asks `Regex` for the rest.
///
/// - Patterns: ASCII literals, escaped punctuation, `.`, `\d \D \s \S \w \W`, and bracket
///   classes of those and of ASCII ranges (negated or not), each followed by at most one
///   of `? * + {n} {n,} {n,m}`. Anything else (groups, alternation, anchors, other
///   escapes, lazy or possessive counts, options, set operations in classes) is left to
///   `Regex`.
/// - Values: ASCII without a carriage return. Each of their characters is then one byte
///   (`"\r\n"`, the one ASCII pair that is a single `Character`, is what the carriage
///   return rule keeps out), so an atom matches a byte exactly when `Regex` matches it
///   to the character; a whole match of a sequence of counted atoms is then a question of
///   positions alone, which a sweep over the value answers in time linear in its length
///   for each atom.
///
/// Why: `Regex` interprets a pattern character by character, and checking a typical
/// e-mail pattern was a large share of an edit's instructions
/// (`BENCH_INSTRUCTIONS_REQUEST=edit Scripts/bench-instructions` counts them). `ASCIIPatternTests`
/// checks every atom against `Regex` on every ASCII character, and random patterns on
/// random values.
struct ASCIIPattern: Sendable {
    /// A set of ASCII bytes.
    struct ByteSet: Sendable {
        var low: UInt64 = 0
        var high: UInt64 = 0

        func contains(_ byte: UInt8) -> Bool {
            byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
        }

        mutating func insert(_ byte: UInt8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
        }

        mutating func insert(_ range: ClosedRange<UInt8>) {
            for byte in range { insert(byte) }
        }

        mutating func formUnion(_ other: ByteSet) {
            low |= other.low
            high |= other.high
        }

        var inverted: ByteSet { ByteSet(low: ~low, high: ~high) }

        static func of(_ bytes: ClosedRange<UInt8>...) -> ByteSet {
            var set = ByteSet()
            for range in bytes { set.insert(range) }
            return set
        }

        static let digits = of(0x30...0x39)
        /// `\s` over ASCII: tab, line feed, vertical tab, form feed, carriage return, space.
        static let whitespace = of(0x09...0x0D, 0x20...0x20)
        static let word = of(0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A)
        /// `.` over ASCII: anything but the newlines (line feed to carriage return).
        static let anyButNewline = of(0x00...0x09, 0x0E...0x7F)
    }

    struct Element: Sendable {
        var bytes: ByteSet
        var min: Int
        /// `nil`: no bound.
        var max: Int?
    }

    let elements: [Element]

    /// The plain pattern `source` spells, or `nil` when it is not one.
    init?(_ source: String) {
        var parser = Parser(bytes: Array(source.utf8))
        guard let elements = parser.elements() else { return nil }
        self.elements = elements
    }

    /// Whether the whole of `text` matches; `nil` when the text is not one this matcher
    /// takes (not ASCII, or holding a carriage return).
    func wholeMatch(_ text: String) -> Bool? {
        var text = text
        return text.withUTF8 { bytes -> Bool? in
            for byte in bytes where byte >= 0x80 || byte == 0x0D { return nil }
            return wholeMatch(bytes)
        }
    }

    private func wholeMatch(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        // `reached[p]`: the elements so far can match exactly the first `p` bytes. On the
        // stack for values of usual lengths.
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: count + 1) { reached in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: count + 2) { cover in
                reached.initialize(repeating: false)
                reached[0] = true
                for element in elements {
                    // Each reached position p opens the interval [p + min, p + min(max, run)],
                    // where run is how many bytes from p on are in the set; a difference array
                    // marks them all in one pass.
                    cover.initialize(repeating: 0)
                    var runEnd = count  // the end of the run of set bytes that position `p` is in
                    var anyReached = false
                    for position in stride(from: count, through: 0, by: -1) {
                        if position < count, !element.bytes.contains(bytes[position]) { runEnd = position }
                        guard reached[position] else { continue }
                        let run = runEnd - position
                        guard run >= element.min else { continue }
                        let last = position + Swift.min(run, element.max ?? run)
                        cover[position + element.min] += 1
                        cover[last + 1] -= 1
                        anyReached = true
                    }
                    guard anyReached else { return false }
                    var open = 0
                    for position in 0...count {
                        open += cover[position]
                        reached[position] = open > 0
                    }
                }
                return reached[count]
            }
        }
    }

    /// Reads the plain subset; `nil` at the first thing outside it.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        /// Characters that mean something in a pattern outside a class.
        static let metacharacters: Set<UInt8> = Set("\\^$.|?*+()[]{}".utf8)

        mutating func elements() -> [Element]? {
            var elements: [Element] = []
            while index < bytes.count {
                guard let atom = atom(), let (min, max) = count() else { return nil }
                elements.append(Element(bytes: atom, min: min, max: max))
            }
            return elements
        }

        private mutating func atom() -> ByteSet? {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "."): return .anyButNewline
            case UInt8(ascii: "\\"): return escape(inClass: false)
            case UInt8(ascii: "["): return bracketClass()
            default:
                guard Self.isPlainLiteral(byte), !Self.metacharacters.contains(byte) else { return nil }
                return .of(byte...byte)
            }
        }

        /// `\d \D \s \S \w \W`, or escaped punctuation as itself.
        private mutating func escape(inClass: Bool) -> ByteSet? {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "d"): return .digits
            case UInt8(ascii: "D"): return inClass ? nil : ByteSet.digits.inverted
            case UInt8(ascii: "s"): return .whitespace
            case UInt8(ascii: "S"): return inClass ? nil : ByteSet.whitespace.inverted
            case UInt8(ascii: "w"): return .word
            case UInt8(ascii: "W"): return inClass ? nil : ByteSet.word.inverted
            default:
                // Punctuation escapes to itself; letters and digits name other things.
                guard Self.isPunctuation(byte) else { return nil }
                return .of(byte...byte)
            }
        }

        /// `[…]` or `[^…]` of literals, escapes and ranges of literals.
        private mutating func bracketClass() -> ByteSet? {
            var set = ByteSet()
            var negated = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "^") {
                negated = true
                index += 1
            }
            var first = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "]"), !first {
                    index += 1
                    return negated ? set.inverted : set
                }
                first = false
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard let escaped = escape(inClass: true) else { return nil }
                    set.formUnion(escaped)
                    continue
                }
                // Brackets, set operators and a class's first `]` are left to `Regex`.
                guard Self.isPlainLiteral(byte), !"[]&~-^".utf8.contains(byte) else { return nil }
                index += 1
                if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-"), bytes[index + 1] != UInt8(ascii: "]") {
                    let upper = bytes[index + 1]
                    guard Self.isPlainLiteral(upper), !"[]&~-^\\".utf8.contains(upper), byte <= upper else { return nil }
                    set.insert(byte...upper)
                    index += 2
                } else {
                    set.insert(byte)
                }
            }
            return nil
        }

        /// The count after an atom: (1, 1) without one; `nil` for lazy, possessive or
        /// malformed counts.
        private mutating func count() -> (Int, Int?)? {
            guard index < bytes.count else { return (1, 1) }
            let counted: (Int, Int?)
            switch bytes[index] {
            case UInt8(ascii: "?"): counted = (0, 1)
            case UInt8(ascii: "*"): counted = (0, nil)
            case UInt8(ascii: "+"): counted = (1, nil)
            case UInt8(ascii: "{"):
                index += 1
                guard let low = number() else { return nil }
                var high: Int? = low
                if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                        high = nil
                    } else {
                        guard let bound = number(), bound >= low else { return nil }
                        high = bound
                    }
                }
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else { return nil }
                counted = (low, high)
            default:
                return (1, 1)
            }
            index += 1
            // A `?` or `+` after a count makes it lazy or possessive.
            if index < bytes.count, "?+*{".utf8.contains(bytes[index]) { return nil }
            return counted
        }

        private mutating func number() -> Int? {
            var value = 0
            var digits = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), digits < 4 {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
                digits += 1
            }
            guard digits > 0, index < bytes.count, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
            return value
        }

        /// Printable ASCII that stands for itself (space included; `#` and whitespace mean
        /// nothing else without the extended syntax, which a pattern cannot turn on here
        /// without a group).
        static func isPlainLiteral(_ byte: UInt8) -> Bool {
            byte >= 0x20 && byte < 0x7F
        }

        static func isPunctuation(_ byte: UInt8) -> Bool {
            isPlainLiteral(byte) && byte != 0x20 && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                && !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }
    }
}
