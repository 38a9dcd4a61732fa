/// The values of one field of every item of a list, in the list's order: what a filter or a
/// `count` condition reads of a long list instead of looking up each item's field.
///
/// Looking up a field hashes its name in the item's fields. A search of a long list reads a
/// field or two of hundreds of items for every keystroke, from a list that keystrokes do not
/// change; a service that remembers a list's columns while the list keeps its storage (an
/// ``ItemColumnSource``) makes the search a walk over arrays. `Scripts/bench-lists` prints
/// what a keystroke costs in a list of 10,000 items against one of 100.
package final class ItemColumn: Hashable, Sendable {
    package let values: [FieldValue]
    /// For a column of strings: their UTF-8 bytes, A–Z folded, one after another; text `i`
    /// is `foldedBytes[starts[i]..<starts[i + 1]]`, of the class `byteClasses[i]`. A search
    /// reads them without touching the strings (whose reference counts, shared by the
    /// threads searching one list, cost more than the search).
    private let foldedBytes: [UInt8]
    private let starts: [Int]
    private let byteClasses: [FoldedText.ByteClass]
    /// ``FoldedText/byteMask(_:)`` of each text.
    private let masks: [UInt64]

    /// The field's value of each record as `item.FIELD` reads it: the type's zero where a
    /// record lacks the field or holds another type.
    package init(_ field: String, _ type: ScalarType, of records: [Record]) {
        values = records.map { ExpressionNode.itemValue($0, field, type) }
        var foldedBytes: [UInt8] = []
        var starts: [Int] = []
        var byteClasses: [FoldedText.ByteClass] = []
        var masks: [UInt64] = []
        if type == .string {
            starts.reserveCapacity(values.count + 1)
            byteClasses.reserveCapacity(values.count)
            masks.reserveCapacity(values.count)
            for case .string(let text) in values {
                let start = foldedBytes.count
                starts.append(start)
                foldedBytes.append(contentsOf: text.utf8.lazy.map(FoldedText.fold))
                // Folding changes only A–Z, which neither the class nor the mask tells apart.
                let folded = foldedBytes[start...]
                byteClasses.append(folded.withUnsafeBufferPointer { FoldedText.ByteClass($0) })
                masks.append(FoldedText.byteMask(folded))
            }
            starts.append(foldedBytes.count)
        }
        (self.foldedBytes, self.starts, self.byteClasses, self.masks) = (foldedBytes, starts, byteClasses, masks)
    }

    /// `contains` or `startsWith` of the text at `index` (of a string column) and `part`.
    func search(_ function: ExpressionFunction, at index: Int, _ part: FoldedPattern) -> Bool {
        let settled = foldedBytes.withUnsafeBufferPointer { bytes in
            FoldedText.settled(
                function, bytes: UnsafeBufferPointer(rebasing: bytes[starts[index]..<starts[index + 1]]), byteClasses[index], folded: true,
                mask: masks[index], part)
        }
        if let settled { return settled }
        guard case .string(let text) = values[index] else { return false }
        return FoldedText.characters(function, text, part.characters)
    }

    package static func == (lhs: ItemColumn, rhs: ItemColumn) -> Bool { lhs === rhs }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// `contains` or `startsWith` of a string column's texts and a prepared text.
final class ColumnSearch: Hashable, Sendable {
    let function: ExpressionFunction
    let column: ItemColumn
    let part: FoldedPattern

    init(_ function: ExpressionFunction, _ column: ItemColumn, _ part: FoldedPattern) {
        (self.function, self.column, self.part) = (function, column, part)
    }

    func holds(at index: Int) -> Bool { column.search(function, at: index, part) }

    static func == (lhs: ColumnSearch, rhs: ColumnSearch) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Gives the columns of lists it remembers. A column it gives must hold what
/// ``ItemColumn/init(_:_:of:)`` computes of the same records; `nil` has the list's items read
/// one by one (as for a list it has not seen often enough to remember).
package protocol ItemColumnSource: Sendable {
    /// The column of `field`, read as `type`, of `records`, the value of the state key `list`.
    func column(_ field: String, _ type: ScalarType, ofList list: String, _ records: [Record]) -> ItemColumn?
}

/// Where the core finds an ``ItemColumnSource``: a service binds one around its work
/// (`ItemColumns.$source.withValue(source) { … }`); without one, every item's fields are
/// looked up as they are read. Results are the same either way.
package enum ItemColumns {
    @TaskLocal package static var source: (any ItemColumnSource)?

    /// Lists shorter than this are read item by item: they cost a few microseconds to
    /// search, and remembering them would crowd the long ones out of a source's memory.
    static let shortestRead = 256

    /// The source to read `records`' columns from, if any is bound and the list is long
    /// enough to gain from it.
    static func source(for records: [Record]) -> (any ItemColumnSource)? {
        records.count >= shortestRead ? source : nil
    }
}
