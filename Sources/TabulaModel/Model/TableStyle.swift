/// The table style a client creates its table view with.
public enum TableStyle: String, CaseIterable, Hashable, Sendable {
    case plain
    case grouped
    case insetGrouped
}
