/// The index path of a row: its section's index and its index within that section.
///
/// Named `RowPath` rather than `IndexPath` so that a client importing Foundation and
/// TabulaCore together does not get an ambiguous name. Ordered section first, then row.
public struct RowPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var section: Int
    public var row: Int

    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    public static func < (lhs: RowPath, rhs: RowPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    public var description: String { "[\(section), \(row)]" }
}
