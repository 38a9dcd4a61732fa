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
    /// empty ids), that custom rows neither reuse a built-in kind nor a reserved key, and
    /// that a slider's or stepper's numbers are ones its control takes: `min` not above
    /// `max`, the step the kind allows, the value within the bounds (to 1e-9, as
    /// ``NumberInput/accepts(_:)`` reads them). A control given other numbers may refuse
    /// them at run time (UIKit's `UIStepper` throws on a step of 0).
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
                switch row.content {
                case .slider(let input), .stepper(let input):
                    try Self.validate(input, kind: row.kind, at: "\(sectionPath).rows[\(rowIndex)]")
                default:
                    break
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

    private static func validate(_ input: NumberInput, kind: String, at rowPath: String) throws(WireFormatError) {
        guard input.min <= input.max else {
            throw WireFormatError(path: rowPath + ".min", problem: .minAboveMax(min: input.min, max: input.max))
        }
        guard kind == "stepper" ? input.step > 0 : input.step >= 0 else {
            throw WireFormatError(path: rowPath + ".step", problem: .invalidStep(input.step, kind: kind))
        }
        guard input.value >= input.min - 1e-9, input.value <= input.max + 1e-9 else {
            throw WireFormatError(path: rowPath + ".value", problem: .valueOutOfBounds(input.value, min: input.min, max: input.max))
        }
    }
}
