/// A pattern of ``PatternNode``'s subset, matched over a value's characters by following
/// every way through the pattern at once (a Thompson automaton, as RE2 and Rust's `regex`
/// match): each character moves each live state one step, so a whole match takes time
/// proportional to the value's length times the pattern's size, whatever either holds.
/// Swift's `Regex` backtracks instead, and a pattern such as `(a+)+b` on a line of `a`s,
/// or an e-mail pattern on a long value with a character beyond ASCII, takes it seconds to
/// minutes: time a user could make a connection's thread spend.
struct LinearPattern: Sendable {
    enum Instruction: Sendable {
        /// Takes one character the atom matches, then goes on to the next instruction.
        case atom(PatternAtom)
        /// Goes on at both places.
        case split(Int, Int)
        case jump(Int)
        case match
    }

    let program: [Instruction]

    /// The most instructions a pattern compiles to (counts are written out: `\d{1,50}`
    /// takes about a hundred); a larger one is left to `Regex`, so that the time a
    /// character takes stays small.
    static let maxInstructions = 512

    init?(_ node: PatternNode) {
        var program: [Instruction] = []
        var budget = Self.maxInstructions * 16
        guard Self.compile(node, into: &program, budget: &budget) else { return nil }
        program.append(.match)
        self.program = program
    }

    /// Whether the whole of `text` matches.
    func wholeMatch(_ text: String) -> Bool {
        var current = StateSet(capacity: program.count)
        var next = StateSet(capacity: program.count)
        var pending: [Int] = []
        pending.reserveCapacity(program.count)
        add(0, to: &current, pending: &pending)
        for character in text {
            if current.isEmpty { return false }
            let classified = ClassifiedCharacter(character)
            for state in current.states {
                if case .atom(let atom) = program[state], atom.matches(classified) { add(state + 1, to: &next, pending: &pending) }
            }
            swap(&current, &next)
            next.removeAll()
        }
        return current.states.contains { if case .match = program[$0] { true } else { false } }
    }

    /// Adds `state` and every state it reaches without taking a character (`pending` is
    /// the walk's scratch space, empty before and after).
    private func add(_ state: Int, to set: inout StateSet, pending: inout [Int]) {
        pending.append(state)
        while let state = pending.popLast() {
            guard set.insert(state) else { continue }
            switch program[state] {
            case .split(let first, let second):
                pending.append(second)
                pending.append(first)
            case .jump(let target):
                pending.append(target)
            case .atom, .match:
                break
            }
        }
    }

    /// Appends `node`'s instructions; `false` once the program would be too large, or the
    /// compiling itself too long (`budget` counts the nodes visited: a count of a group that
    /// compiles to nothing, `(?:(?:){9999}){9999}`, adds no instruction however often).
    private static func compile(_ node: PatternNode, into program: inout [Instruction], budget: inout Int) -> Bool {
        budget -= 1
        guard program.count < maxInstructions, budget >= 0 else { return false }
        switch node {
        case .atom(let atom):
            program.append(.atom(atom))
        case .sequence(let nodes):
            for node in nodes {
                guard compile(node, into: &program, budget: &budget) else { return false }
            }
        case .alternatives(let choices):
            // split(a, next split) … each choice jumping past the others.
            var jumps: [Int] = []
            for (position, choice) in choices.enumerated() {
                let split = program.count
                if position < choices.count - 1 { program.append(.jump(-1)) }
                guard compile(choice, into: &program, budget: &budget) else { return false }
                if position < choices.count - 1 {
                    jumps.append(program.count)
                    program.append(.jump(-1))
                    program[split] = .split(split + 1, program.count)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .counted(let inner, let min, let max):
            for _ in 0..<min {
                guard compile(inner, into: &program, budget: &budget) else { return false }
            }
            if let max {
                // Each optional copy may stop the count: split(copy, end).
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    program.append(.jump(-1))
                    guard compile(inner, into: &program, budget: &budget) else { return false }
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                // split(copy, end); copy; jump back to the split.
                let split = program.count
                program.append(.jump(-1))
                guard compile(inner, into: &program, budget: &budget) else { return false }
                program.append(.jump(split))
                program[split] = .split(split + 1, program.count)
            }
        }
        return program.count <= maxInstructions
    }
}

/// States of a program, each at most once, in the order added; cleared in constant time.
private struct StateSet {
    private(set) var states: [Int] = []
    private var present: [Bool]

    init(capacity: Int) {
        present = Array(repeating: false, count: capacity)
        states.reserveCapacity(capacity)
    }

    var isEmpty: Bool { states.isEmpty }

    /// Whether `state` was not there yet.
    mutating func insert(_ state: Int) -> Bool {
        guard !present[state] else { return false }
        present[state] = true
        states.append(state)
        return true
    }

    mutating func removeAll() {
        for state in states { present[state] = false }
        states.removeAll(keepingCapacity: true)
    }
}
