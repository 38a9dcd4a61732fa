/// A `pattern` rule of the plainest kind, matched over bytes: a sequence of single-character
/// atoms, each with a greedy count (a ``PatternNode`` of only those). It answers what
/// Swift's `Regex` answers, for the patterns it takes and the values it takes; `PatternRule`
/// asks ``LinearPattern`` for the rest.
///
/// - Values: ASCII without a carriage return. Each of their characters is then one byte
///   (`"\r\n"`, the one ASCII pair that is a single `Character`, is what the carriage
///   return rule keeps out), so an atom matches a byte exactly when it matches the
///   character; a whole match of a sequence of counted atoms is then a question of
///   positions alone, which a sweep over the value answers in time linear in its length
///   for each atom.
///
/// Why: the e-mail pattern of a sign-in form is of this kind, and following every state
/// of ``LinearPattern`` for each character of the value costs more than these sweeps
/// (`BENCH_INSTRUCTIONS_REQUEST=edit Scripts/bench-instructions` counts an edit's
/// instructions). `ASCIIPatternTests` checks every atom against `Regex` on every ASCII
/// character, and random patterns on random values.
struct ASCIIPattern: Sendable {
    struct Element: Sendable {
        var bytes: ByteSet
        var min: Int
        /// `nil`: no bound.
        var max: Int?
    }

    let elements: [Element]

    /// The plain pattern `node` is, or `nil` when it is not one.
    init?(_ node: PatternNode) {
        var elements: [Element] = []
        for item in node.items {
            switch item {
            case .atom(let atom):
                elements.append(Element(bytes: atom.ascii, min: 1, max: 1))
            case .counted(.atom(let atom), let min, let max):
                elements.append(Element(bytes: atom.ascii, min: min, max: max))
            default:
                return nil
            }
        }
        // Each element is a pass over the value: no more than the character matcher's
        // instructions.
        guard elements.count <= LinearPattern.maxInstructions else { return nil }
        self.elements = elements
    }

    /// The plain pattern `source` spells, or `nil` when it is not one.
    init?(_ source: String) {
        guard let node = PatternNode.parse(source) else { return nil }
        self.init(node)
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
}

extension PatternNode {
    /// The items of a sequence, or the node as the one item.
    fileprivate var items: [PatternNode] {
        if case .sequence(let items) = self { return items }
        return [self]
    }
}
