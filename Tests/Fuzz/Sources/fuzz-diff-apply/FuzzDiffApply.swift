import FuzzSupport
import TabulaCore

/// Fuzzes the diff and its application: two screens are made from the input (see
/// ``ScreenPairBuilder``), and in both directions the change set must apply back to the
/// new screen, keep the batch-update rules of one `performBatchUpdates`, and survive the wire.
@main enum FuzzDiffApply {
    static func main() {
        FuzzDriver.run(fuzzDiffApply)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDiffApply(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var builder = ScreenPairBuilder(FuzzDriver.bytes(data, size))
    let (old, new) = builder.build()
    PipelineChecks.checkDiff(from: old, to: new)
    PipelineChecks.checkDiff(from: new, to: old)
    return 0
}

/// Makes an old and a new screen from fuzzer bytes: a small generated screen is edited by
/// a stream of operations (insert, delete, move and update sections and rows; retitle;
/// restyle); a `snapshot` operation takes the old screen, the end of the input gives the
/// new one. Ids are unique, except that `reuseRowID` may repeat one on purpose: the diff
/// promises to stay total for such screens too.
struct ScreenPairBuilder {
    private enum Operation: CaseIterable {
        case insertSection, deleteSection, moveSection, updateSection
        case insertRow, deleteRow, moveRow, updateRow
        case retitle, restyle, snapshot, reuseRowID
    }

    /// Bounds that keep every run fast; small screens find the same bugs.
    private static let maxSections = 10
    private static let maxRows = 60
    private static let maxOperations = 256

    private var input: FuzzBytes
    private var screen = Screen(id: "fuzz", title: "Fuzz")
    private var nextID = 0

    init(_ bytes: [UInt8]) {
        input = FuzzBytes(bytes)
    }

    mutating func build() -> (old: Screen, new: Screen) {
        for _ in 0..<input.int(in: 0...3) {
            insertSection(rowCount: input.int(in: 0...4))
        }
        var old = screen
        for _ in 0..<Self.maxOperations where !input.isAtEnd {
            switch input.pick(Operation.allCases) {
            case .insertSection: insertSection(rowCount: input.int(in: 0...3))
            case .deleteSection: deleteSection()
            case .moveSection: moveSection()
            case .updateSection: updateSection()
            case .insertRow: insertRow(id: freshID("r"))
            case .deleteRow: deleteRow()
            case .moveRow: moveRow()
            case .updateRow: updateRow()
            case .retitle: screen.title = input.pick(["Fuzz", "Settings", "Édition", ""])
            case .restyle: screen.style = input.pick([nil, .plain, .grouped, .insetGrouped])
            case .snapshot: old = screen
            case .reuseRowID: reuseRowID()
            }
        }
        return (old, screen)
    }

    // MARK: Operations

    private mutating func insertSection(rowCount: Int) {
        guard screen.sections.count < Self.maxSections else { return }
        var section = Section(id: freshID("s"), header: headerFooter(), footer: headerFooter())
        for _ in 0..<rowCount where screen.rowCount + section.rows.count < Self.maxRows {
            section.rows.append(row(id: freshID("r")))
        }
        screen.sections.insert(section, at: input.int(in: 0...screen.sections.count))
    }

    private mutating func deleteSection() {
        guard let index = input.index(below: screen.sections.count) else { return }
        screen.sections.remove(at: index)
    }

    private mutating func moveSection() {
        guard let from = input.index(below: screen.sections.count) else { return }
        let section = screen.sections.remove(at: from)
        screen.sections.insert(section, at: input.int(in: 0...screen.sections.count))
    }

    private mutating func updateSection() {
        guard let index = input.index(below: screen.sections.count) else { return }
        if input.bool() {
            screen.sections[index].header = headerFooter()
        } else {
            screen.sections[index].footer = headerFooter()
        }
    }

    private mutating func insertRow(id: String) {
        guard screen.rowCount < Self.maxRows, let section = input.index(below: screen.sections.count) else { return }
        let position = input.int(in: 0...screen.sections[section].rows.count)
        screen.sections[section].rows.insert(row(id: id), at: position)
    }

    private mutating func deleteRow() {
        guard let path = existingRowPath() else { return }
        screen.sections[path.section].rows.remove(at: path.row)
    }

    private mutating func moveRow() {
        guard let from = existingRowPath(), let toSection = input.index(below: screen.sections.count) else { return }
        let row = screen.sections[from.section].rows.remove(at: from.row)
        screen.sections[toSection].rows.insert(row, at: input.int(in: 0...screen.sections[toSection].rows.count))
    }

    private mutating func updateRow() {
        guard let path = existingRowPath() else { return }
        let id = screen.sections[path.section].rows[path.row].id
        screen.sections[path.section].rows[path.row] = row(id: id)
    }

    private mutating func reuseRowID() {
        guard let path = existingRowPath() else { return }
        insertRow(id: screen.sections[path.section].rows[path.row].id)
    }

    // MARK: Parts

    private mutating func freshID(_ prefix: String) -> String {
        nextID += 1
        return "\(prefix)\(nextID)"
    }

    /// A row path of the screen chosen by the input, or `nil` when the screen has no rows.
    private mutating func existingRowPath() -> RowPath? {
        let filled = screen.sections.indices.filter { !screen.sections[$0].rows.isEmpty }
        guard let choice = input.index(below: filled.count) else { return nil }
        let section = filled[choice]
        guard let row = input.index(below: screen.sections[section].rows.count) else { return nil }
        return RowPath(section: section, row: row)
    }

    /// Texts from a small set, so that updates sometimes change nothing.
    private mutating func text() -> String {
        input.pick(["Wi-Fi", "Bluetooth", "Corner Café", "", "Wi-Fi ", "✓", "a\"b\\c\n"])
    }

    private mutating func row(id: String) -> Row {
        let content: RowContent
        switch input.int(in: 0...7) {
        case 0: content = .basic(title: text())
        case 1: content = .subtitle(title: text(), subtitle: text(), image: input.bool() ? text() : nil)
        case 2: content = .leftRightTitles(leftTitle: text(), rightTitle: text())
        case 3: content = .titleSwitch(title: text(), isOn: input.bool())
        case 4: content = .checkmark(title: text(), isChecked: input.bool())
        case 5: content = .empty
        case 6: content = .button(title: text(), style: input.pick(ButtonStyle.allCases))
        default: content = .custom(kind: input.pick(["card", "badge"]), fields: fields())
        }
        return Row(
            id: id, content: content, selectable: input.bool(), deletable: input.bool(),
            accessory: input.pick([nil] + Accessory.allCases.map(Optional.some)),
            height: input.pick([nil, 0, 44, 60.5]), estimatedHeight: input.pick([nil, 44, 1e300]))
    }

    private mutating func headerFooter() -> HeaderFooter? {
        switch input.int(in: 0...3) {
        case 0: nil
        case 1: .titleHeader(title: text())
        case 2: .textFooter(text: text())
        default: .custom(kind: "banner", fields: fields())
        }
    }

    private mutating func fields() -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for name in ["title", "count", "shown"] where input.bool() {
            fields[name] = input.pick([.string(text()), .number(input.pick([0, -1.5, 42, 0.1])), .bool(input.bool())])
        }
        return fields
    }
}
