import TabulaCore

/// A random screen definition that can be edited at random the way its authors edit one
/// between two deployments: rows and sections added, removed, moved, retitled and hidden by
/// new conditions; state keys added, removed, retyped and given new defaults. Every version
/// is valid, so tests can check what a changed definition does to the clients of the
/// previous one.
public struct EvolvingDefinition: Sendable {
    public enum KeyType: CaseIterable, Sendable {
        case bool, number, string, list
    }

    public struct Key: Sendable {
        public var name: String
        public var type: KeyType
        /// The default, as JSON.
        public var defaultValue: JSONValue
    }

    /// A row's or section's `visibleWhen`.
    public enum Condition: Sendable {
        case flag(key: String, negated: Bool)
        case above(key: String, Double)
        case equals(key: String, String)

        var key: String {
            switch self {
            case .flag(let key, _), .above(let key, _), .equals(let key, _): key
            }
        }

        var expression: String {
            switch self {
            case .flag(let key, let negated): (negated ? "!" : "") + key
            case .above(let key, let bound): "\(key) > \(JSONValue.number(bound).canonicalText)"
            case .equals(let key, let value): "\(key) == '\(value)'"
            }
        }
    }

    public enum Content: Sendable {
        /// `basic` with a constant title.
        case label(title: String)
        /// `subtitle` showing a scalar key's value.
        case readout(title: String, key: String)
        /// `titleSwitch` storing its value in a bool key.
        case toggle(title: String, key: String)
        /// `checkmark`, checked when a string key has `value`; selecting it sets that value.
        case choice(title: String, key: String, value: String)
        /// `basic`; selecting it sets a number key to `value`.
        case counter(title: String, key: String, value: Double)
        /// `leftRightTitles` repeated over a list's items, deletable.
        case items(list: String)

        /// The state keys the content reads or writes.
        var keys: [String] {
            switch self {
            case .label: []
            case .readout(_, let key), .toggle(_, let key), .choice(_, let key, _), .counter(_, let key, _): [key]
            case .items(let list): [list]
            }
        }
    }

    public struct Row: Sendable {
        /// The row's id, or for `items` the prefix of its rows' ids.
        public var id: String
        public var content: Content
        public var visibleWhen: Condition?
    }

    public struct Section: Sendable {
        public var id: String
        public var header: String?
        /// Constant text, or `{{list.count}} …` when `countOf` names a list.
        public var footer: String?
        public var countOf: String?
        public var visibleWhen: Condition?
        public var keepWhenEmpty: Bool
        public var rows: [Row]
    }

    public var screenID: String
    public var title: String
    public var style: TableStyle?
    public var keys: [Key]
    public var sections: [Section]
    /// The next number for a fresh id, so that a removed id is never given to something else.
    private var nextNumber = 0

    private static let words = ["Alpha", "Bravo", "Cedar", "Delta", "Ember", "Fjord", "Grove", "Harbor", "Iris", "Jade"]
    private static let choices = ["a", "b", "c"]

    /// A random definition of a screen `screenID`: a few keys of every type and a few
    /// sections of rows using them.
    public static func random(screenID: String = "evolving", _ random: inout SplitMix64) -> EvolvingDefinition {
        var definition = EvolvingDefinition(screenID: screenID, title: "Screen", style: nil, keys: [], sections: [])
        definition.title = definition.word(&random)
        definition.style = random.pick([nil, .plain, .grouped, .insetGrouped])
        for type in KeyType.allCases { definition.addKey(type, &random) }
        for _ in 0..<Int.random(in: 0...3, using: &random) { definition.addKey(random.pick(KeyType.allCases), &random) }
        for _ in 0..<Int.random(in: 1...4, using: &random) { definition.addSection(&random) }
        return definition
    }

    /// Makes `count` random edits.
    public mutating func evolve(_ random: inout SplitMix64, edits count: Int) {
        for _ in 0..<count { edit(&random) }
    }

    /// One random edit.
    public mutating func edit(_ random: inout SplitMix64) {
        switch Int.random(in: 0..<17, using: &random) {
        case 0, 1: addRow(&random)
        case 2: removeRow(&random)
        case 3: moveRow(&random)
        case 4: retitle(&random)
        case 5: addSection(&random)
        case 6: if sections.count > 1 { sections.remove(at: Int.random(in: sections.indices, using: &random)) }
        case 7:
            if sections.count > 1 {
                sections.insert(sections.remove(at: Int.random(in: sections.indices, using: &random)), at: Int.random(in: 0..<sections.count, using: &random))
            }
        case 8: hideRow(&random)
        case 9: hideSection(&random)
        case 10: unhide(&random)
        case 11: addKey(random.pick(KeyType.allCases), &random)
        case 12: removeKey(&random)
        case 13: retypeKey(&random)
        case 14: changeDefault(&random)
        case 15: style = random.pick([nil, .plain, .grouped, .insetGrouped])
        default: title = word(&random)
        }
    }

    /// The definition file.
    public var file: DefinitionFile {
        DefinitionFile(name: "\(screenID).json", bytes: Array(json.prettyText().utf8))
    }

    /// The definition as JSON.
    public var json: JSONValue {
        var object = JSONObject()
        object["id"] = .string(screenID)
        object["title"] = .string(title)
        if let style { object["style"] = .string(style.rawValue) }
        var state = JSONObject()
        for key in keys {
            if key.type == .list {
                state[key.name] = ["type": "list", "item": ["name": "string"], "default": key.defaultValue]
            } else {
                state[key.name] = key.defaultValue
            }
        }
        object["state"] = .object(state)
        object["sections"] = .array(sections.map(Self.json))
        return .object(object)
    }

    private static func json(_ section: Section) -> JSONValue {
        var object = JSONObject()
        object["id"] = .string(section.id)
        if let header = section.header { object["header"] = ["kind": "titleHeader", "title": .string(header)] }
        if let list = section.countOf {
            object["footer"] = ["kind": "textFooter", "text": .string("{{\(list).count}} \(section.footer ?? "")")]
        } else if let footer = section.footer {
            object["footer"] = ["kind": "textFooter", "text": .string(footer)]
        }
        if let condition = section.visibleWhen { object["visibleWhen"] = .string(condition.expression) }
        if section.keepWhenEmpty { object["keepWhenEmpty"] = true }
        object["rows"] = .array(section.rows.map(Self.json))
        return .object(object)
    }

    private static func json(_ row: Row) -> JSONValue {
        var object = JSONObject()
        object["id"] = .string(row.id)
        switch row.content {
        case .label(let title):
            object["kind"] = "basic"
            object["title"] = .string(title)
        case .readout(let title, let key):
            object["kind"] = "subtitle"
            object["title"] = .string(title)
            object["subtitle"] = .string("{{\(key)}}")
        case .toggle(let title, let key):
            object["kind"] = "titleSwitch"
            object["title"] = .string(title)
            object["isOn"] = .string(key)
            object["onSwitch"] = ["set": .string(key)]
        case .choice(let title, let key, let value):
            object["kind"] = "checkmark"
            object["title"] = .string(title)
            object["isChecked"] = .string("\(key) == '\(value)'")
            object["onSelect"] = ["set": .object(JSONObject([key: .string(value)]))]
        case .counter(let title, let key, let value):
            object["kind"] = "basic"
            object["title"] = .string("\(title) {{\(key)}}")
            object["onSelect"] = ["set": .object(JSONObject([key: .number(value)]))]
        case .items(let list):
            object["id"] = .string("\(row.id)-{{item.id}}")
            object["forEach"] = .string(list)
            object["kind"] = "leftRightTitles"
            object["leftTitle"] = "{{item.name}}"
            object["rightTitle"] = .string(row.id)
            object["onDelete"] = ["remove": .string(list)]
        }
        if let condition = row.visibleWhen { object["visibleWhen"] = .string(condition.expression) }
        return .object(object)
    }

    // MARK: - Edits

    private mutating func freshID(_ prefix: String) -> String {
        nextNumber += 1
        return "\(prefix)\(nextNumber)"
    }

    private mutating func word(_ random: inout SplitMix64) -> String {
        nextNumber += 1
        return "\(random.pick(Self.words)) \(nextNumber)"
    }

    private func keys(of type: KeyType) -> [String] {
        keys.filter { $0.type == type }.map(\.name)
    }

    private static func randomDefault(_ type: KeyType, _ random: inout SplitMix64) -> JSONValue {
        switch type {
        case .bool: .bool(Bool.random(using: &random))
        case .number: .number(Double(Int.random(in: 0...3, using: &random)))
        case .string: .string(random.pick(choices))
        case .list:
            .array((0..<Int.random(in: 0...4, using: &random)).map { ["id": .string("i\($0)"), "name": .string("Item \($0)")] })
        }
    }

    @discardableResult
    private mutating func addKey(_ type: KeyType, _ random: inout SplitMix64) -> String {
        let name = freshID("k")
        keys.append(Key(name: name, type: type, defaultValue: Self.randomDefault(type, &random)))
        return name
    }

    /// A key of `type`, often an existing one, else a new one.
    private mutating func key(_ type: KeyType, _ random: inout SplitMix64) -> String {
        let existing = keys(of: type)
        if !existing.isEmpty, Int.random(in: 0..<4, using: &random) > 0 { return random.pick(existing) }
        return addKey(type, &random)
    }

    private mutating func randomRow(_ random: inout SplitMix64) -> Row {
        let content: Content
        switch Int.random(in: 0..<6, using: &random) {
        case 0: content = .label(title: word(&random))
        case 1: content = .readout(title: word(&random), key: key(random.pick([.bool, .number, .string]), &random))
        case 2: content = .toggle(title: word(&random), key: key(.bool, &random))
        case 3: content = .choice(title: word(&random), key: key(.string, &random), value: random.pick(Self.choices))
        case 4: content = .counter(title: word(&random), key: key(.number, &random), value: Double(Int.random(in: 0...3, using: &random)))
        default: content = .items(list: key(.list, &random))
        }
        let prefix = if case .items = content { "it" } else { "r" }
        let id = freshID(prefix)
        let visibleWhen = Int.random(in: 0..<5, using: &random) == 0 ? randomCondition(&random) : nil
        return Row(id: id, content: content, visibleWhen: visibleWhen)
    }

    private mutating func randomCondition(_ random: inout SplitMix64) -> Condition {
        switch Int.random(in: 0..<3, using: &random) {
        case 0: .flag(key: key(.bool, &random), negated: Bool.random(using: &random))
        case 1: .above(key: key(.number, &random), Double(Int.random(in: 0...2, using: &random)))
        default: .equals(key: key(.string, &random), random.pick(Self.choices))
        }
    }

    private mutating func addRow(_ random: inout SplitMix64) {
        guard !sections.isEmpty else { return addSection(&random) }
        let row = randomRow(&random)
        let section = Int.random(in: sections.indices, using: &random)
        sections[section].rows.insert(row, at: Int.random(in: 0...sections[section].rows.count, using: &random))
    }

    private mutating func addSection(_ random: inout SplitMix64) {
        var section = Section(
            id: freshID("s"), header: Bool.random(using: &random) ? word(&random) : nil, footer: nil, countOf: nil,
            visibleWhen: nil, keepWhenEmpty: Int.random(in: 0..<4, using: &random) == 0, rows: [])
        switch Int.random(in: 0..<3, using: &random) {
        case 0: section.footer = word(&random)
        case 1:
            section.countOf = key(.list, &random)
            section.footer = "items"
        default: break
        }
        for _ in 0..<Int.random(in: 1...4, using: &random) { section.rows.append(randomRow(&random)) }
        sections.insert(section, at: Int.random(in: 0...sections.count, using: &random))
    }

    /// A random row's place, if there is a row.
    private func randomRowPlace(_ random: inout SplitMix64) -> (section: Int, row: Int)? {
        let places = sections.indices.flatMap { section in sections[section].rows.indices.map { (section, $0) } }
        return places.isEmpty ? nil : random.pick(places)
    }

    private mutating func removeRow(_ random: inout SplitMix64) {
        guard let place = randomRowPlace(&random) else { return }
        sections[place.section].rows.remove(at: place.row)
    }

    private mutating func moveRow(_ random: inout SplitMix64) {
        guard let place = randomRowPlace(&random) else { return }
        let row = sections[place.section].rows.remove(at: place.row)
        let target = Int.random(in: sections.indices, using: &random)
        sections[target].rows.insert(row, at: Int.random(in: 0...sections[target].rows.count, using: &random))
    }

    private mutating func retitle(_ random: inout SplitMix64) {
        let title = word(&random)
        if Bool.random(using: &random), !sections.isEmpty {
            let section = Int.random(in: sections.indices, using: &random)
            if Bool.random(using: &random) { sections[section].header = title } else { sections[section].footer = title }
            return
        }
        guard let place = randomRowPlace(&random) else { return }
        switch sections[place.section].rows[place.row].content {
        case .label: sections[place.section].rows[place.row].content = .label(title: title)
        case .readout(_, let key): sections[place.section].rows[place.row].content = .readout(title: title, key: key)
        case .toggle(_, let key): sections[place.section].rows[place.row].content = .toggle(title: title, key: key)
        case .choice(_, let key, let value): sections[place.section].rows[place.row].content = .choice(title: title, key: key, value: value)
        case .counter(_, let key, let value): sections[place.section].rows[place.row].content = .counter(title: title, key: key, value: value)
        case .items: break
        }
    }

    private mutating func hideRow(_ random: inout SplitMix64) {
        guard let place = randomRowPlace(&random) else { return }
        sections[place.section].rows[place.row].visibleWhen = randomCondition(&random)
    }

    private mutating func hideSection(_ random: inout SplitMix64) {
        guard !sections.isEmpty else { return }
        sections[Int.random(in: sections.indices, using: &random)].visibleWhen = randomCondition(&random)
    }

    private mutating func unhide(_ random: inout SplitMix64) {
        if Bool.random(using: &random), !sections.isEmpty {
            sections[Int.random(in: sections.indices, using: &random)].visibleWhen = nil
        } else if let place = randomRowPlace(&random) {
            sections[place.section].rows[place.row].visibleWhen = nil
        }
    }

    private mutating func changeDefault(_ random: inout SplitMix64) {
        guard !keys.isEmpty else { return }
        let index = Int.random(in: keys.indices, using: &random)
        keys[index].defaultValue = Self.randomDefault(keys[index].type, &random)
    }

    /// Removes a key and everything that uses it: rows go, conditions are dropped, a
    /// footer's count becomes its text.
    private mutating func removeKey(_ random: inout SplitMix64) {
        guard !keys.isEmpty else { return }
        let name = keys.remove(at: Int.random(in: keys.indices, using: &random)).name
        for section in sections.indices {
            sections[section].rows.removeAll { $0.content.keys.contains(name) }
            for row in sections[section].rows.indices where sections[section].rows[row].visibleWhen?.key == name {
                sections[section].rows[row].visibleWhen = nil
            }
            if sections[section].visibleWhen?.key == name { sections[section].visibleWhen = nil }
            if sections[section].countOf == name { sections[section].countOf = nil }
        }
    }

    /// Gives a key another type and default, keeping its name, and rewrites what uses it for
    /// the new type: rows keep their ids (their kinds may change), conditions test the new type.
    private mutating func retypeKey(_ random: inout SplitMix64) {
        guard !keys.isEmpty else { return }
        let index = Int.random(in: keys.indices, using: &random)
        let name = keys[index].name
        let type = random.pick(KeyType.allCases.filter { $0 != keys[index].type })
        keys[index].type = type
        keys[index].defaultValue = Self.randomDefault(type, &random)
        for section in sections.indices {
            for row in sections[section].rows.indices {
                var edited = sections[section].rows[row]
                if edited.content.keys.contains(name) { edited.content = Self.content(using: name, of: type, title: word(&random), &random) }
                if edited.visibleWhen?.key == name { edited.visibleWhen = Self.condition(on: name, of: type, &random) }
                sections[section].rows[row] = edited
            }
            if sections[section].visibleWhen?.key == name { sections[section].visibleWhen = Self.condition(on: name, of: type, &random) }
            if sections[section].countOf == name, type != .list { sections[section].countOf = nil }
        }
    }

    private static func content(using key: String, of type: KeyType, title: String, _ random: inout SplitMix64) -> Content {
        switch type {
        case .bool: Bool.random(using: &random) ? .toggle(title: title, key: key) : .readout(title: title, key: key)
        case .number: .counter(title: title, key: key, value: Double(Int.random(in: 0...3, using: &random)))
        case .string: .choice(title: title, key: key, value: random.pick(choices))
        case .list: .items(list: key)
        }
    }

    private static func condition(on key: String, of type: KeyType, _ random: inout SplitMix64) -> Condition? {
        switch type {
        case .bool: .flag(key: key, negated: Bool.random(using: &random))
        case .number: .above(key: key, Double(Int.random(in: 0...2, using: &random)))
        case .string: .equals(key: key, random.pick(choices))
        case .list: nil
        }
    }
}

extension SplitMix64 {
    /// A random element of a non-empty collection.
    mutating func pick<C: Collection>(_ elements: C) -> C.Element where C.Index == Int {
        elements[Int.random(in: elements.startIndex..<elements.endIndex, using: &self)]
    }
}

/// Random events a client could send on a screen it shows.
public enum RandomEvents {
    /// An event on a random row of `screen` that takes one (selectable, deletable, or a
    /// switch), with the row's path; `nil` when no row does.
    public static func pick(on screen: Screen, _ random: inout SplitMix64) -> (event: Event, path: RowPath)? {
        var candidates: [(Event, RowPath)] = []
        for (sectionIndex, section) in screen.sections.enumerated() {
            for (rowIndex, row) in section.rows.enumerated() {
                let path = RowPath(section: sectionIndex, row: rowIndex)
                if row.selectable { candidates.append((.select(row: row.id), path)) }
                if row.deletable { candidates.append((.delete(row: row.id), path)) }
                if case .titleSwitch(_, let isOn) = row.content { candidates.append((.setSwitch(row: row.id, isOn: !isOn), path)) }
            }
        }
        return candidates.isEmpty ? nil : random.pick(candidates)
    }
}
