/// Finds the definition (and `forEach` item) behind a row id without evaluating every row:
/// fixed ids by dictionary, repeated rows by their `prefix{{item.id}}suffix` pattern.
/// Validation guarantees at most one row can give any id.
struct RowLocator: Sendable {
    struct Position: Sendable {
        let section: Int
        let row: Int
    }

    private struct Pattern: Sendable {
        let ids: ItemIDPattern
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
                if let list = row.forEach, let ids = row.itemIDPattern {
                    patterns.append(Pattern(ids: ids, list: list, position: position))
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
        for pattern in patterns {
            guard let itemID = pattern.ids.itemID(in: id) else { continue }
            if let item = state.records(pattern.list).first(where: { $0.id == itemID }) { return (pattern.position, item) }
        }
        return nil
    }
}

/// The ids a `forEach` row gives, `prefix{{item.id}}suffix`: the one place an item's id is
/// read back out of a row's id.
struct ItemIDPattern: Sendable {
    let prefix: String
    let suffix: String

    /// The item id in `id`, or `nil` when this row cannot have given `id`.
    func itemID(in id: String) -> String? {
        guard id.utf8.count > prefix.utf8.count + suffix.utf8.count, id.hasPrefix(prefix), id.hasSuffix(suffix) else { return nil }
        return String(id.dropFirst(prefix.count).dropLast(suffix.count))
    }
}

extension RowDefinition {
    /// How the row's ids hold its items' ids; `nil` for a row without one expression in its id.
    var itemIDPattern: ItemIDPattern? {
        id.singleExpressionAffixes.map { ItemIDPattern(prefix: $0.prefix, suffix: $0.suffix) }
    }
}
