/// Finds the definition (and `forEach` item) behind a row id without evaluating every row:
/// fixed ids by dictionary, repeated rows by their `prefix{{item.id}}suffix` pattern.
/// Validation guarantees at most one row can give any id.
struct RowLocator: Sendable {
    struct Position: Sendable {
        let section: Int
        let row: Int
    }

    private struct Pattern: Sendable {
        let prefix: String
        let suffix: String
        let list: String
        let position: Position
    }

    private let fixed: [String: Position]
    private let patterns: [Pattern]

    init(_ sections: [SectionDefinition]) {
        var fixed: [String: Position] = [:]
        var patterns: [Pattern] = []
        for (sectionIndex, section) in sections.enumerated() {
            for (rowIndex, row) in section.rows.enumerated() {
                let position = Position(section: sectionIndex, row: rowIndex)
                if let list = row.forEach, let affixes = row.id.singleExpressionAffixes {
                    patterns.append(Pattern(prefix: affixes.prefix, suffix: affixes.suffix, list: list, position: position))
                } else if fixed[row.id.source] == nil {
                    fixed[row.id.source] = position
                }
            }
        }
        self.fixed = fixed
        self.patterns = patterns
    }

    /// The row's position in the definition and, for a repeated row, its item.
    func locate(_ id: String, in state: SessionState) -> (position: Position, item: Record?)? {
        if let position = fixed[id] { return (position, nil) }
        for pattern in patterns
        where id.utf8.count > pattern.prefix.utf8.count + pattern.suffix.utf8.count
            && id.hasPrefix(pattern.prefix) && id.hasSuffix(pattern.suffix)
        {
            let itemID = String(id.dropFirst(pattern.prefix.count).dropLast(pattern.suffix.count))
            if let item = state.records(pattern.list).first(where: { $0.id == itemID }) { return (pattern.position, item) }
        }
        return nil
    }
}
