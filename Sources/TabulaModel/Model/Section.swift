/// A section of a table screen: optional header and footer models and its rows.
public struct Section: Hashable, Sendable {
    /// Stable identity among the screen's sections; the diff matches sections by it.
    public var id: String
    public var header: HeaderFooter?
    public var footer: HeaderFooter?
    public var rows: [Row]

    public init(id: String, header: HeaderFooter? = nil, footer: HeaderFooter? = nil, rows: [Row] = []) {
        self.id = id
        self.header = header
        self.footer = footer
        self.rows = rows
    }
}
