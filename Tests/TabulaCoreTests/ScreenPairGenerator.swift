import TabulaCore
import TabulaSamples

/// Builds a random screen and a random edit of it: section inserts, deletes, moves and
/// header/footer changes; row inserts, deletes, moves within and across sections and
/// content edits; rows leaving deleted sections and rows joining inserted sections.
struct ScreenPairGenerator {
    var random: SplitMix64
    /// Roughly the percentage of items each kind of edit touches (0 gives `new == old`).
    var intensity: Int
    private var nextID = 0

    init(seed: UInt64, intensity: Int) {
        random = SplitMix64(seed: seed)
        self.intensity = intensity
    }

    mutating func pair(rowCount: Int, sectionCount: Int) -> (old: Screen, new: Screen) {
        let old = makeScreen(rowCount: rowCount, sectionCount: sectionCount)
        return (old, edit(old))
    }

    private mutating func freshID(_ prefix: String) -> String {
        nextID += 1
        return "\(prefix)\(nextID)"
    }

    private mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &random) < percent
    }

    private mutating func makeRow() -> Row {
        let id = freshID("r")
        var row = Row(id: id, content: randomContent(), selectable: chance(30), deletable: chance(20))
        if chance(10) { row.accessory = Accessory.allCases.randomElement(using: &random) }
        if chance(10) { row.height = Double(Int.random(in: 20...80, using: &random)) }
        if chance(10) { row.enabled = false }
        if row.content.isInput {
            row.editable = row.enabled && chance(80)
            if chance(20) { row.error = "Enter a value" }
        }
        return row
    }

    private mutating func randomContent() -> RowContent {
        let word = ["Wi-Fi", "Bluetooth", "Café", "Ann", "Bob", "About", "Version"].randomElement(using: &random) ?? "x"
        switch Int.random(in: 0..<11, using: &random) {
        case 0: return .basic(title: word)
        case 1: return .subtitle(title: word, subtitle: "Age \(Int.random(in: 1...99, using: &random))", image: chance(50) ? "person" : nil)
        case 2: return .leftRightTitles(leftTitle: word, rightTitle: "1.\(Int.random(in: 0...9, using: &random))")
        case 3: return .titleSwitch(title: word, isOn: chance(50))
        case 4: return .checkmark(title: word, isChecked: chance(50))
        case 5: return .empty
        case 6: return .button(title: word, style: chance(50) ? .default : .destructive)
        case 7: return .textField(TextFieldInput(title: word, text: chance(50) ? word : "", contentType: chance(20) ? .password : .text))
        case 8:
            let options = [ChoiceOption(id: "a", title: "A"), ChoiceOption(id: "b", title: word)]
            return .picker(ChoiceInput(title: word, options: options, selected: chance(50) ? "a" : nil))
        case 9: return .stepper(NumberInput(title: word, value: Double(Int.random(in: 0...5, using: &random)), min: 0, max: 5, step: 1))
        default: return .custom(kind: "gauge", fields: ["level": .number(Double(Int.random(in: 0...100, using: &random)))])
        }
    }

    private mutating func randomHeader() -> HeaderFooter? {
        chance(50) ? .titleHeader(title: "Header \(Int.random(in: 0...3, using: &random))") : nil
    }

    private mutating func randomFooter() -> HeaderFooter? {
        chance(30) ? .textFooter(text: "Footer \(Int.random(in: 0...3, using: &random))") : nil
    }

    private mutating func makeScreen(rowCount: Int, sectionCount: Int) -> Screen {
        var sections: [Section] = (0..<max(sectionCount, 0)).map { _ in
            Section(id: freshID("s"), header: randomHeader(), footer: randomFooter())
        }
        if !sections.isEmpty {
            for _ in 0..<rowCount {
                let target = Int.random(in: 0..<sections.count, using: &random)
                sections[target].rows.append(makeRow())
            }
        }
        return Screen(id: "generated", title: "Generated", sections: sections)
    }

    private mutating func edit(_ old: Screen) -> Screen {
        guard intensity > 0 else { return old }
        var new = old
        if chance(10) { new.title = "Renamed" }
        var pool: [Row] = []  // rows on their way to another place

        // Delete sections; some of their rows reappear elsewhere.
        new.sections = new.sections.filter { section in
            guard chance(intensity) else { return true }
            pool.append(contentsOf: section.rows.filter { _ in chance(30) })
            return false
        }
        // Take rows out of kept sections: some to delete, some to move across sections.
        for index in new.sections.indices {
            new.sections[index].rows = new.sections[index].rows.filter { row in
                if chance(intensity) { return false }
                if chance(intensity) {
                    pool.append(row)
                    return false
                }
                return true
            }
        }
        // Insert sections, some taking rows from kept sections with them.
        let insertions = Int.random(in: 0...max(1, new.sections.count * intensity / 100), using: &random)
        for _ in 0..<insertions {
            var inserted = Section(id: freshID("s"), header: randomHeader(), footer: randomFooter())
            for _ in 0..<Int.random(in: 0...5, using: &random) { inserted.rows.append(makeRow()) }
            if !pool.isEmpty && chance(50) { inserted.rows.append(pool.removeLast()) }
            new.sections.insert(inserted, at: Int.random(in: 0...new.sections.count, using: &random))
        }
        // Move sections.
        for _ in 0..<(new.sections.count * intensity / 100) where new.sections.count > 1 {
            let moved = new.sections.remove(at: Int.random(in: 0..<new.sections.count, using: &random))
            new.sections.insert(moved, at: Int.random(in: 0...new.sections.count, using: &random))
        }
        guard !new.sections.isEmpty else { return new }
        // Put pooled rows somewhere (cross-section moves and rows leaving deleted sections).
        for row in pool where chance(80) {
            let target = Int.random(in: 0..<new.sections.count, using: &random)
            new.sections[target].rows.insert(row, at: Int.random(in: 0...new.sections[target].rows.count, using: &random))
        }
        for index in new.sections.indices {
            // Moves within the section.
            let count = new.sections[index].rows.count
            for _ in 0..<(count * intensity / 100) where count > 1 {
                let row = new.sections[index].rows.remove(at: Int.random(in: 0..<count, using: &random))
                new.sections[index].rows.insert(row, at: Int.random(in: 0..<count, using: &random))
            }
            // New rows and content edits.
            for _ in 0..<(count * intensity / 100) {
                new.sections[index].rows.insert(makeRow(), at: Int.random(in: 0...new.sections[index].rows.count, using: &random))
            }
            for rowIndex in new.sections[index].rows.indices where chance(intensity) {
                new.sections[index].rows[rowIndex].content = randomContent()
                if chance(20) { new.sections[index].rows[rowIndex].selectable.toggle() }
                if chance(20) { new.sections[index].rows[rowIndex].enabled.toggle() }
                // Only input rows carry `editable` and `error`.
                if !new.sections[index].rows[rowIndex].content.isInput {
                    new.sections[index].rows[rowIndex].editable = false
                    new.sections[index].rows[rowIndex].error = nil
                } else if chance(20) {
                    new.sections[index].rows[rowIndex].error = chance(50) ? "Too short" : nil
                }
            }
            if chance(intensity) { new.sections[index].header = randomHeader() }
            if chance(intensity) { new.sections[index].footer = randomFooter() }
        }
        return new
    }
}
