/// A table screen as a client decodes and renders it.
///
/// Section ids are unique among sections and row ids are unique across the whole screen,
/// so a row keeps its identity when it moves between sections. ``validate()`` checks this;
/// decoding checks it always.
public struct Screen: Hashable, Sendable {
    public var id: String
    public var title: String
    /// The session revision this screen was rendered at.
    public var revision: Int
    /// The id of the screen definition that rendered it (``DefinitionDocument/id``); `nil`
    /// for a screen that no definition rendered. With `revision`, it names the copy a
    /// client holds: events and catch-up send both, so that the service rebuilds exactly
    /// that copy even after the definition changed.
    public var definition: String?
    /// On an item screen, the id of the item it shows (the `item` query parameter of its
    /// routes); `nil` on other screens.
    public var item: String?
    public var style: TableStyle?
    public var sections: [Section]

    public init(
        id: String, title: String, revision: Int = 0, definition: String? = nil, item: String? = nil, style: TableStyle? = nil,
        sections: [Section] = []
    ) {
        self.item = item
        self.id = id
        self.title = title
        self.revision = revision
        self.definition = definition
        self.style = style
        self.sections = sections
    }

    /// The row at an index path, or `nil` when the path is outside the screen.
    public func row(at path: RowPath) -> Row? {
        guard sections.indices.contains(path.section) else { return nil }
        let rows = sections[path.section].rows
        guard rows.indices.contains(path.row) else { return nil }
        return rows[path.row]
    }

    /// The index path of the row with an id, or `nil` when there is none.
    public func path(ofRow id: String) -> RowPath? {
        for (sectionIndex, section) in sections.enumerated() {
            if let rowIndex = section.rows.firstIndex(where: { $0.id == id }) {
                return RowPath(section: sectionIndex, row: rowIndex)
            }
        }
        return nil
    }

    /// The number of rows in all sections.
    public var rowCount: Int {
        sections.reduce(0) { $0 + $1.rows.count }
    }

    /// Checks the identity rules (unique section ids, row ids unique across the screen, no
    /// empty ids) and that custom rows neither reuse a built-in kind nor a reserved key.
    public func validate() throws(WireFormatError) {
        var sectionIDs = Set<String>()
        var rowIDs = Set<String>()
        for (sectionIndex, section) in sections.enumerated() {
            let sectionPath = "$.sections[\(sectionIndex)]"
            if section.id.isEmpty { throw WireFormatError(path: sectionPath + ".id", problem: .emptyID) }
            guard sectionIDs.insert(section.id).inserted else {
                throw WireFormatError(path: sectionPath + ".id", problem: .duplicateSectionID(section.id))
            }
            for (rowIndex, row) in section.rows.enumerated() {
                let rowPath = "\(sectionPath).rows[\(rowIndex)].id"
                if row.id.isEmpty { throw WireFormatError(path: rowPath, problem: .emptyID) }
                guard rowIDs.insert(row.id).inserted else {
                    throw WireFormatError(path: rowPath, problem: .duplicateRowID(row.id))
                }
                if case .custom(let kind, let fields) = row.content {
                    let kindPath = "\(sectionPath).rows[\(rowIndex)].kind"
                    if RowContent.builtInKinds.contains(kind) {
                        throw WireFormatError(path: kindPath, problem: .builtInKindAsCustom(kind))
                    }
                    if let reserved = fields.keys.sorted().first(where: Row.reservedKeys.contains) {
                        throw WireFormatError(path: kindPath, problem: .reservedFieldName(reserved))
                    }
                }
            }
        }
    }
}
