import TabulaCore

/// Large generated screens for benchmarks: settings-like rows spread over sections, and an
/// edited copy with a given share of content edits and moves.
public enum SyntheticScreens {
    /// A screen of `rowCount` rows in `sectionCount` sections of equal size.
    public static func screen(rowCount: Int, sectionCount: Int) -> Screen {
        let perSection = max(1, (rowCount + sectionCount - 1) / max(sectionCount, 1))
        var sections: [Section] = []
        var made = 0
        for sectionIndex in 0..<max(sectionCount, 1) {
            var section = Section(id: "section-\(sectionIndex)", header: .titleHeader(title: "Section \(sectionIndex)"))
            while made < rowCount && section.rows.count < perSection {
                section.rows.append(row(made))
                made += 1
            }
            sections.append(section)
        }
        return Screen(id: "synthetic", title: "Synthetic", style: .insetGrouped, sections: sections)
    }

    /// A row like those of a settings screen, varied by its number.
    public static func row(_ number: Int) -> Row {
        let id = "row-\(number)"
        switch number % 4 {
        case 0: return Row(id: id, content: .titleSwitch(title: "Setting \(number)", isOn: number % 3 == 0))
        case 1: return Row(id: id, content: .leftRightTitles(leftTitle: "Item \(number)", rightTitle: "Value \(number)"))
        case 2: return Row(id: id, content: .subtitle(title: "Person \(number)", subtitle: "Age \(number % 90)", image: nil), deletable: true)
        default: return Row(id: id, content: .basic(title: "Details \(number)"), selectable: true, accessory: .disclosureIndicator)
        }
    }

    /// A copy of `screen` where `editPercent` % of rows have new content and `movePercent` %
    /// of rows moved to a random place in a random section.
    public static func edited(
        _ screen: Screen, editPercent: Double, movePercent: Double, seed: UInt64
    ) -> (screen: Screen, movedRows: Int) {
        var random = SplitMix64(seed: seed)
        var result = screen
        let total = screen.rowCount
        guard total > 0, !result.sections.isEmpty else { return (result, 0) }
        let edits = Int(Double(total) * editPercent / 100)
        let moves = Int(Double(total) * movePercent / 100)
        for _ in 0..<edits {
            let sectionIndex = Int.random(in: 0..<result.sections.count, using: &random)
            guard !result.sections[sectionIndex].rows.isEmpty else { continue }
            let rowIndex = Int.random(in: 0..<result.sections[sectionIndex].rows.count, using: &random)
            result.sections[sectionIndex].rows[rowIndex].content = editedContent(result.sections[sectionIndex].rows[rowIndex].content, rowIndex)
        }
        var moved = 0
        for _ in 0..<moves {
            let from = Int.random(in: 0..<result.sections.count, using: &random)
            guard !result.sections[from].rows.isEmpty else { continue }
            let row = result.sections[from].rows.remove(at: Int.random(in: 0..<result.sections[from].rows.count, using: &random))
            let to = Int.random(in: 0..<result.sections.count, using: &random)
            result.sections[to].rows.insert(row, at: Int.random(in: 0...result.sections[to].rows.count, using: &random))
            moved += 1
        }
        return (result, moved)
    }

    /// Other content of the same kind (an edit of another kind would replace the row).
    private static func editedContent(_ content: RowContent, _ number: Int) -> RowContent {
        switch content {
        case .titleSwitch(_, let isOn): .titleSwitch(title: "Edited \(number)", isOn: !isOn)
        case .leftRightTitles(let left, _): .leftRightTitles(leftTitle: left, rightTitle: "Edited \(number)")
        case .subtitle(let title, _, let image): .subtitle(title: title, subtitle: "Edited \(number)", image: image)
        default: .basic(title: "Edited \(number)")
        }
    }
}

extension SyntheticScreens {
    /// A screen definition with one `forEach` row over a list of `rowCount` records, in 20
    /// sections, and its state: render cost at scale.
    public static func definition(rowCount: Int) throws -> (ScreenDefinition, SessionState) {
        let sections = 20
        var state = "{"
        var rows = ""
        for section in 0..<sections {
            let count = rowCount / sections + (section < rowCount % sections ? 1 : 0)
            let items = (0..<count).map { #"{"id": "\#(section)-\#($0)", "name": "Item \#($0)", "on": \#($0 % 2 == 0)}"# }
            state += (section == 0 ? "" : ", ") + "\"list\(section)\": [" + items.joined(separator: ", ") + "]"
            rows +=
                (section == 0 ? "" : ", ") + #"""
                    {"id": "s\#(section)", "header": {"kind": "titleHeader", "title": "Section \#(section) ({{list\#(section).count}})"},
                     "rows": [{"forEach": "list\#(section)", "id": "row\#(section)-{{item.id}}", "kind": "titleSwitch", "title": "{{item.name}}", "isOn": "item.on"}]}
                    """#
        }
        state += "}"
        let json = #"{"id": "synthetic", "title": "Synthetic", "state": \#(state), "sections": [\#(rows)]}"#
        let catalogue = try Catalogue.load([DefinitionFile(name: "synthetic.json", bytes: Array(json.utf8))])
        guard let definition = catalogue.screen(id: "synthetic") else { throw DefinitionErrors([]) }
        return (definition, catalogue.initialState)
    }
}
