/// Which items of its list a `forEach` row shows, and in which order: `filter`, then
/// `sort`, then `limit`, in that order; the row's own `visibleWhen` then applies to the
/// items that remain.
///
/// Sorting is stable. Strings compare by their `lowercased()` form, then as they are, by
/// Unicode scalar values; numbers by value; `false` sorts before `true`. `limit` takes the
/// first N items: a fraction rounds down, and below 0 counts as 0.
public struct ItemSelection: Sendable {
    /// Keeps the items for which it holds.
    public let filter: Expression?
    public let sort: ItemSort?
    /// How many of the items that remain are shown.
    public let limit: Expression?

    public init(filter: Expression?, sort: ItemSort?, limit: Expression?) {
        self.filter = filter
        self.sort = sort
        self.limit = limit
    }

    /// The state keys the selection reads (besides its list).
    public var stateKeys: Set<String> {
        var keys: Set<String> = []
        for expression in [filter, sort?.by, limit].compactMap({ $0 }) { keys.formUnion(expression.stateKeys) }
        return keys
    }

    /// The items shown, in the order shown. `context` is the row's context without an
    /// item; each item is read as `item`. Without a sort, the filter stops at the limit, so
    /// that a search showing the first 50 matches reads no further than the 50th.
    /// `records` is the value of the state key `list`: a filter of a long list reads its
    /// items' fields from their columns when a source that has them is bound (``ItemColumns``).
    public func items(of list: String, _ records: [Record], _ context: EvaluationContext) -> [Record] {
        var itemContext = context
        var filter = filter?.boundToState(context)
        var readsColumns = false
        if let bound = filter, let source = ItemColumns.source(for: records), let reading = bound.readingColumns(of: list, records, from: source) {
            (filter, readsColumns) = (reading, true)
        }
        // Reading columns, the filter touches no record: records' reference counts, shared by
        // every session whose list is its default's, are costly to touch. Without a sort, the
        // loop then copies only the records it shows.
        func passes(_ position: Int) -> Bool {
            guard let filter else { return true }
            if readsColumns { itemContext.itemIndex = position } else { itemContext.item = records[position] }
            return filter.isTrue(itemContext)
        }
        let count = limit.map { Self.count($0.evaluate(context)) } ?? Int.max
        guard let sort else {
            var shown: [Record] = []
            for position in records.indices where shown.count < count && passes(position) { shown.append(records[position]) }
            return shown
        }
        var keyed: [(key: SortKey, position: Int, item: Record)] = []
        for (position, item) in records.enumerated() where passes(position) {
            itemContext.item = item
            keyed.append((SortKey(sort.by.evaluate(itemContext)), position, item))
        }
        let descending = sort.order == .descending
        keyed.sort { first, second in
            if first.key == second.key { return first.position < second.position }
            return descending ? second.key < first.key : first.key < second.key
        }
        return keyed.prefix(count).map(\.item)
    }

    /// A limit's value as a count: rounded down, at least 0 (a number too large for a
    /// count shows every item).
    static func count(_ value: FieldValue) -> Int {
        guard case .number(let number) = value, !number.isNaN, number > 0 else { return 0 }
        return number >= 0x1p52 ? Int.max : Int(number.rounded(.down))
    }
}

/// A `forEach`'s order: an expression over the item, ascending or descending.
public struct ItemSort: Sendable {
    public enum Order: String, CaseIterable, Sendable {
        case ascending, descending
    }

    public let by: Expression
    public let order: Order

    public init(by: Expression, order: Order) {
        self.by = by
        self.order = order
    }
}

/// A sort key, compared as ``ItemSelection`` says; computed once per item.
private struct SortKey: Equatable, Comparable {
    private let rank: Int
    private let number: Double
    /// The `lowercased()` form's Unicode scalar values, then the text's own.
    private let folded: [UInt32]
    private let scalars: [UInt32]

    init(_ value: FieldValue) {
        switch value {
        case .bool(let flag): (rank, number, folded, scalars) = (0, flag ? 1 : 0, [], [])
        case .number(let value): (rank, number, folded, scalars) = (1, value, [], [])
        case .string(let text): (rank, number, folded, scalars) = (2, 0, text.lowercased().unicodeScalars.map(\.value), text.unicodeScalars.map(\.value))
        }
    }

    static func < (lhs: SortKey, rhs: SortKey) -> Bool {
        if lhs.rank != rhs.rank { return lhs.rank < rhs.rank }
        if lhs.number != rhs.number { return lhs.number < rhs.number }
        if lhs.folded != rhs.folded { return lhs.folded.lexicographicallyPrecedes(rhs.folded) }
        return lhs.scalars.lexicographicallyPrecedes(rhs.scalars)
    }
}
