/// The part of Swift's `Regex` syntax that Tabula matches itself, in time linear in the
/// value's length (``LinearPattern``, and ``ASCIIPattern`` over bytes): a `pattern` rule
/// written in it cannot be made to take exponential or quadratic time by what a user
/// types, as `Regex`'s backtracking can (`(a+)+b` on a line of `a`s, or an e-mail pattern on
/// a long value that is not ASCII). `PatternRule` asks `Regex` for the patterns outside it.
///
/// - Atoms: ASCII literals, escaped punctuation, `.`, `\d \D \s \S \w \W`, and bracket
///   classes (negated or not) of ASCII literals, ASCII ranges, escaped punctuation and
///   `\d \s \w`.
/// - Groups `( )` and `(?: )`, alternation `|`, and after an atom or a group one of
///   `? * + {n} {n,} {n,m}`, greedy or lazy (the same for a whole match).
/// - `^` at the start and `$` at the end of a top-level alternative, where a whole match
///   makes them always true.
///
/// Anything else (other escapes, anchors elsewhere, `\b`, lookaround, back references,
/// named groups, options, possessive counts, set operations and POSIX classes in brackets,
/// a pattern that is not ASCII) is not taken. `LinearPatternTests` holds every atom to
/// `Regex`'s answer on characters of every kind, and random patterns on random values.
indirect enum PatternNode: Sendable, Equatable {
    case atom(PatternAtom)
    case sequence([PatternNode])
    case alternatives([PatternNode])
    case counted(PatternNode, min: Int, max: Int?)

    /// The pattern `source` spells, or `nil` when it is not in the subset.
    static func parse(_ source: String) -> PatternNode? {
        var parser = PatternParser(bytes: Array(source.utf8))
        return parser.pattern()
    }
}

/// What one character of the value must be: a set of ASCII characters, and for any other
/// character (not ASCII, or more than one scalar, as `"\r\n"` and `"é"` written with a
/// combining accent are) the Unicode properties `Regex` asks of it.
struct PatternAtom: Sendable, Equatable {
    /// The characters of one ASCII scalar it takes.
    var ascii: ByteSet
    /// For any other character: whether it has one of these properties, reversed when
    /// `negated`.
    var properties: CharacterProperties
    var negated: Bool

    func matches(_ character: ClassifiedCharacter) -> Bool {
        switch character {
        case .ascii(let byte): ascii.contains(byte)
        case .other(let has): !has.isDisjoint(with: properties) != negated
        }
    }

    static func literal(_ byte: UInt8) -> PatternAtom {
        PatternAtom(ascii: .of(byte...byte), properties: [], negated: false)
    }

    /// `.`: anything but a newline.
    static let anyButNewline = PatternAtom(ascii: ByteSet.newlines.inverted, properties: [.newline], negated: true)

    /// `\d`, `\s`, `\w`, or their negations.
    static func shorthand(_ property: CharacterProperties, negated: Bool) -> PatternAtom {
        PatternAtom(ascii: negated ? property.ascii.inverted : property.ascii, properties: property, negated: negated)
    }
}

/// The Unicode properties of `\d`, `\s` and `\w` and of `.`'s newlines, as `Regex` reads
/// them of a character (by its first scalar, as `Character`'s properties do).
struct CharacterProperties: OptionSet, Sendable, Equatable {
    let rawValue: UInt8
    static let digit = CharacterProperties(rawValue: 1)
    static let whitespace = CharacterProperties(rawValue: 2)
    static let word = CharacterProperties(rawValue: 4)
    static let newline = CharacterProperties(rawValue: 8)

    /// The ASCII characters that have one of them.
    var ascii: ByteSet {
        var set = ByteSet()
        if contains(.digit) { set.formUnion(.digits) }
        if contains(.whitespace) { set.formUnion(.whitespace) }
        if contains(.word) { set.formUnion(.word) }
        if contains(.newline) { set.formUnion(.newlines) }
        return set
    }
}

/// A character of the value, read once for every atom that looks at it.
enum ClassifiedCharacter {
    /// One ASCII scalar.
    case ascii(UInt8)
    /// Anything else, with the properties atoms ask of it.
    case other(CharacterProperties)

    init(_ character: Character) {
        let scalars = character.unicodeScalars
        if let first = scalars.first, first.isASCII, scalars.index(after: scalars.startIndex) == scalars.endIndex {
            self = .ascii(UInt8(first.value))
            return
        }
        var flags: CharacterProperties = []
        if character.isNumber { flags.insert([.digit, .word]) }
        if character.isLetter { flags.insert(.word) }
        if character.isWhitespace { flags.insert(.whitespace) }
        if character.isNewline { flags.insert(.newline) }
        self = .other(flags)
    }
}

/// A set of ASCII bytes.
struct ByteSet: Sendable, Equatable {
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
    /// The newlines `.` does not take: line feed to carriage return.
    static let newlines = of(0x0A...0x0D)
}

/// Reads the subset; `nil` at the first thing outside it.
private struct PatternParser {
    let bytes: [UInt8]
    var index = 0
    /// Groups open around the current position.
    var depth = 0

    static let maxDepth = 32
    /// Characters that mean something in a pattern outside a class.
    static let metacharacters: Set<UInt8> = Set("\\^$.|?*+()[]{}".utf8)

    mutating func pattern() -> PatternNode? {
        guard let node = alternatives(topLevel: true), index == bytes.count else { return nil }
        return node
    }

    private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func alternatives(topLevel: Bool) -> PatternNode? {
        var choices: [PatternNode] = []
        while true {
            guard let choice = sequence(topLevel: topLevel) else { return nil }
            choices.append(choice)
            guard next == UInt8(ascii: "|") else { break }
            index += 1
        }
        return choices.count == 1 ? choices[0] : .alternatives(choices)
    }

    private mutating func sequence(topLevel: Bool) -> PatternNode? {
        if topLevel, next == UInt8(ascii: "^") { index += 1 }
        var items: [PatternNode] = []
        while let byte = next, byte != UInt8(ascii: "|"), byte != UInt8(ascii: ")") {
            if topLevel, byte == UInt8(ascii: "$"), index + 1 == bytes.count || bytes[index + 1] == UInt8(ascii: "|") {
                index += 1
                break
            }
            guard let atom = item() else { return nil }
            guard let counted = count(of: atom) else { return nil }
            items.append(counted)
        }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func item() -> PatternNode? {
        guard let byte = next else { return nil }
        index += 1
        switch byte {
        case UInt8(ascii: "("):
            if next == UInt8(ascii: "?") {
                // `(?:` only: named groups, options and lookaround are left to `Regex`.
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ":") else { return nil }
                index += 2
            }
            depth += 1
            guard depth <= Self.maxDepth, let inner = alternatives(topLevel: false), next == UInt8(ascii: ")") else { return nil }
            index += 1
            depth -= 1
            return inner
        case UInt8(ascii: "."): return .atom(.anyButNewline)
        case UInt8(ascii: "\\"): return escape(inClass: false).map(PatternNode.atom)
        case UInt8(ascii: "["): return bracketClass().map(PatternNode.atom)
        default:
            guard Self.isPlainLiteral(byte), !Self.metacharacters.contains(byte) else { return nil }
            // `<{…}>` is an interpolation to `Regex`'s parser, which refuses it.
            guard byte != UInt8(ascii: "<") || next != UInt8(ascii: "{") else { return nil }
            return .atom(.literal(byte))
        }
    }

    /// `\d \D \s \S \w \W`, or escaped punctuation as itself; in a class only the first
    /// kind's positive forms.
    private mutating func escape(inClass: Bool) -> PatternAtom? {
        guard let byte = next else { return nil }
        index += 1
        switch byte {
        case UInt8(ascii: "d"): return .shorthand(.digit, negated: false)
        case UInt8(ascii: "D"): return inClass ? nil : .shorthand(.digit, negated: true)
        case UInt8(ascii: "s"): return .shorthand(.whitespace, negated: false)
        case UInt8(ascii: "S"): return inClass ? nil : .shorthand(.whitespace, negated: true)
        case UInt8(ascii: "w"): return .shorthand(.word, negated: false)
        case UInt8(ascii: "W"): return inClass ? nil : .shorthand(.word, negated: true)
        default:
            // Punctuation escapes to itself; letters and digits name other things.
            guard Self.isPunctuation(byte) else { return nil }
            return .literal(byte)
        }
    }

    /// `[…]` or `[^…]` of literals, escapes and ranges of literals.
    private mutating func bracketClass() -> PatternAtom? {
        var ascii = ByteSet()
        var properties: CharacterProperties = []
        var negated = false
        if next == UInt8(ascii: "^") {
            negated = true
            index += 1
        }
        // `[:alpha:]` is a POSIX class to `Regex`, not a set of those characters.
        guard next != UInt8(ascii: ":") else { return nil }
        var first = true
        while let byte = next {
            if byte == UInt8(ascii: "]"), !first {
                index += 1
                return PatternAtom(ascii: negated ? ascii.inverted : ascii, properties: properties, negated: negated)
            }
            let isFirst = first
            first = false
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard let escaped = escape(inClass: true) else { return nil }
                ascii.formUnion(escaped.ascii)
                properties.formUnion(escaped.properties)
                continue
            }
            // A `-` first or last is itself (`[A-Za-z0-9._%+-]`); anywhere else it would make
            // a range, or something else to `Regex`.
            if byte == UInt8(ascii: "-"), isFirst || (index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "]")) {
                ascii.insert(byte)
                index += 1
                continue
            }
            // Brackets, set operators and a class's first `]` are left to `Regex`.
            guard Self.isPlainLiteral(byte), !"[]&~-^".utf8.contains(byte) else { return nil }
            index += 1
            if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-"), bytes[index + 1] != UInt8(ascii: "]") {
                let upper = bytes[index + 1]
                guard Self.isPlainLiteral(upper), !"[]&~-^\\".utf8.contains(upper), byte <= upper else { return nil }
                ascii.insert(byte...upper)
                index += 2
            } else {
                ascii.insert(byte)
            }
        }
        return nil
    }

    /// The count after an atom or a group, if any; `nil` for possessive or malformed counts.
    private mutating func count(of node: PatternNode) -> PatternNode? {
        guard let byte = next else { return node }
        let counted: (Int, Int?)
        switch byte {
        case UInt8(ascii: "?"): counted = (0, 1)
        case UInt8(ascii: "*"): counted = (0, nil)
        case UInt8(ascii: "+"): counted = (1, nil)
        case UInt8(ascii: "{"):
            index += 1
            guard let low = number() else { return nil }
            var high: Int? = low
            if next == UInt8(ascii: ",") {
                index += 1
                if next == UInt8(ascii: "}") {
                    high = nil
                } else {
                    guard let bound = number(), bound >= low else { return nil }
                    high = bound
                }
            }
            guard next == UInt8(ascii: "}") else { return nil }
            counted = (low, high)
        default:
            return node
        }
        index += 1
        // A `?` after a count makes it lazy, which a whole match does not see; a `+`
        // possessive, which it does.
        if next == UInt8(ascii: "?") { index += 1 }
        if let byte = next, "?+*{".utf8.contains(byte) { return nil }
        return .counted(node, min: counted.0, max: counted.1)
    }

    private mutating func number() -> Int? {
        var value = 0
        var digits = 0
        while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 4 {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        guard digits > 0, let byte = next, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        return value
    }

    /// Printable ASCII that stands for itself (space included; `#` and whitespace mean
    /// nothing else without the extended syntax, which a pattern cannot turn on here
    /// without an option).
    static func isPlainLiteral(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F
    }

    static func isPunctuation(_ byte: UInt8) -> Bool {
        isPlainLiteral(byte) && byte != 0x20 && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            && !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
