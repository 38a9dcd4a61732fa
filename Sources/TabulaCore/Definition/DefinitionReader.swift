/// Reads one definition file into a ``ScreenDefinition``, collecting every problem instead
/// of stopping at the first. The `DefinitionReader+*.swift` files read its parts.
struct DefinitionReader {
    var log: ProblemLog
    /// The state keys this screen declares.
    var state: [(key: String, declaration: StateDeclaration)] = []
    /// The types of the keys expressions may use: this screen's own and those the other
    /// screens of the catalogue declare (state is shared by all of them).
    var stateTypes: [String: StateType]
    /// What the other screens declare, for the keys of theirs that this one reads.
    let sharedState: [String: StateDeclaration]
    var kinds: [String: KindDeclaration] = [:]
    /// The screen's id, and whether it declares an `item`, as read even when the screen has
    /// problems: other screens' `navigate` targets are checked against them, so that a
    /// problem of this screen is not reported again as a navigation to a screen that is gone.
    var screenID: String?
    var declaresItem = false
    /// `navigate` targets with their paths, checked once every screen is known.
    var navigations: [(target: String, path: String, withItem: Bool)] = []
    /// On an item screen, its list and the list's record schema: what `item` reads in the
    /// screen's expressions outside `forEach` rows.
    var screenItem: (list: String, schema: RecordSchema)?
    /// The rows `equals` rules name, with their paths, checked once the screen is read.
    var equalsReferences: [(row: String, path: String, kind: String)] = []
    /// The forms `submit`, `reset` and `valid('FORM')` name, with their paths, checked once
    /// the screen is read.
    var formReferences: [(form: String, path: String)] = []
    /// The catalogue's string tables, which `@key` names.
    let strings: StringTables?
    /// The message keys the definition names, with the path of the first place each is.
    var messageUses: [String: String] = [:]

    /// The URL schemes an `open` action may write; `nil` reads any (a kept definition,
    /// served before: its URLs are checked when their events run).
    let urlSchemes: URLSchemes?

    /// A reader for one file; `sharedState` holds the keys other screens declare.
    init(file: String, sharedState: [String: StateDeclaration] = [:], strings: StringTables? = nil, urlSchemes: URLSchemes? = nil) {
        log = ProblemLog(file: file)
        self.sharedState = sharedState
        self.strings = strings
        self.urlSchemes = urlSchemes
        stateTypes = sharedState.mapValues(\.type)
    }

    /// The keys a definition declares under `"state"`, without reading the rest or
    /// reporting problems (the full read reports them).
    static func declaredState(_ json: JSONValue) -> [(key: String, declaration: StateDeclaration)] {
        guard case .object(let object) = json, let declarations = object["state"] else { return [] }
        var reader = DefinitionReader(file: "")
        reader.readState(declarations, path: "$.state")
        return reader.state
    }

    /// The names an expression outside a `forEach` row may use: the state, the messages,
    /// and on an item screen `item`.
    var stateScope: ExpressionScope { ExpressionScope(state: stateTypes, item: screenItem, strings: strings) }

    /// Names usable as state keys and field names: they appear in expressions.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    /// Names that cannot be state keys: expressions read them as something else.
    static let reservedStateKeys = ["item", "true", "false"]

    /// The punctuation screen and section ids may use besides ASCII letters and digits.
    static let safeIDPunctuation = "-_."
    /// The longest screen or section id, in bytes.
    static let safeIDMaximumLength = 200
    /// What a screen or section id may be, as messages and the schema say it.
    static var safeIDRule: String {
        let punctuation = safeIDPunctuation.map { "'\($0)'" }
        return "letters, digits, \(punctuation.dropLast().joined(separator: ", ")) and \(punctuation.last ?? "") (at most \(safeIDMaximumLength))"
    }

    /// Screen and section ids appear in URLs and paths; keep them to a safe alphabet.
    static func isSafeID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= safeIDMaximumLength
            && id.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || safeIDPunctuation.unicodeScalars.contains($0))
            }
    }

    /// The fields of each built-in header and footer kind: name, type, required.
    static let builtInHeaderFooterFields: [String: [(name: String, type: ScalarType, required: Bool)]] = [
        "titleHeader": [("title", .string, true)],
        "textFooter": [("text", .string, true)],
    ]

    mutating func readScreen(_ json: JSONValue) -> ScreenDefinition? {
        guard var object = DefinitionObject(json, path: "$", log: &log) else { return nil }
        let id = object.requireString(ScreenMember.id, log: &log)
        screenID = id
        if let id, !Self.isSafeID(id) {
            log.add(
                .structure, at: object.memberPath(ScreenMember.id), "screen id \"\(id)\" appears in URLs; use \(Self.safeIDRule)")
        }
        if let declarations = object.take(ScreenMember.state) { readState(declarations, path: object.memberPath(ScreenMember.state)) }
        if let kindDeclarations = object.take(ScreenMember.kinds) { readKinds(kindDeclarations, path: object.memberPath(ScreenMember.kinds)) }
        if let item = object.take(ScreenMember.item) {
            declaresItem = true
            readScreenItem(item, path: object.memberPath(ScreenMember.item))
        }
        let title = object.require(ScreenMember.title, log: &log).flatMap { template($0, path: object.memberPath(ScreenMember.title), scope: stateScope) }
        let style = object.optionalEnumeration(ScreenMember.style, as: TableStyle.self, log: &log)
        let sections = readArray(object.require(ScreenMember.sections, log: &log), path: object.memberPath(ScreenMember.sections), of: "sections") {
            $0.readSection($1, path: $2)
        }
        // Editors' schema reference, not part of the screen.
        if let schema = object.take(ScreenMember.schema), schema.stringValue == nil {
            log.wrongType(at: object.memberPath(ScreenMember.schema), expected: "a string (the JSON Schema editors check the file with)", found: schema)
        }
        object.reportUnread(log: &log)
        checkIdentity(sections)
        checkEqualsReferences(sections)
        checkFormReferences(sections)
        guard let id, let title else { return nil }
        let declarations = declarations(
            read: ScreenDefinition.stateKeys(title: title, sections: sections).union(screenItem.map { [$0.list] } ?? []))
        let messages = messageUses.isEmpty ? nil : strings?.restricted(to: Set(messageUses.keys))
        return ScreenDefinition(
            id: id, file: log.file, title: title, style: style, state: state, kinds: kinds, sections: sections,
            declarations: declarations, strings: messages, item: screenItem?.list,
            document: DefinitionDocument(object.object, declarations: declarations, strings: messages))
    }

    /// `"item": {"list": LIST}`: the screen shows one item of a list key.
    private mutating func readScreenItem(_ value: JSONValue, path: String) {
        guard case .object(let object) = value, object.keys == ["list"], case .string(let list)? = object["list"] else {
            log.add(.structure, at: path, "\"item\" is {\"list\": LIST}: the screen shows one item of the list key LIST, named by ?item=ID")
            return
        }
        switch stateTypes[list] {
        case .list(let schema)?: screenItem = (list, schema)
        case .scalar(let type)?:
            log.add(.typeMismatch, at: "\(path).list", "\"\(list)\" is a \(type.rawValue), not a list; an item screen shows an item of a list")
        case nil: log.add(.unknownStateKey, at: "\(path).list", "unknown state key \"\(list)\"; declare it under \"state\" as a list of records")
        }
    }

    /// This screen's own declarations, and those of the keys it reads or writes that other
    /// screens declare, by key.
    private func declarations(read keys: Set<String>) -> [(key: String, declaration: StateDeclaration)] {
        var byKey: [String: StateDeclaration] = [:]
        for (key, declaration) in state { byKey[key] = declaration }
        for key in keys where byKey[key] == nil {
            if let shared = sharedState[key] { byKey[key] = shared }
        }
        return byKey.sorted { $0.key.utf8Precedes($1.key) }.map { (key: $0.key, declaration: $0.value) }
    }

    private mutating func readSection(_ json: JSONValue, path: String) -> SectionDefinition? {
        guard var object = DefinitionObject(json, path: path, log: &log) else { return nil }
        let id = object.requireString(SectionMember.id, log: &log)
        if let id, !Self.isSafeID(id) {
            log.add(.structure, at: object.memberPath(SectionMember.id), "section id \"\(id)\" must be \(Self.safeIDRule)")
        }
        let header = object.take(SectionMember.header).flatMap { headerFooter($0, path: object.memberPath(SectionMember.header)) }
        let footer = object.take(SectionMember.footer).flatMap { headerFooter($0, path: object.memberPath(SectionMember.footer)) }
        let visibleWhen = object.take(SectionMember.visibleWhen).flatMap {
            expression($0, type: .bool, path: object.memberPath(SectionMember.visibleWhen), scope: stateScope)
        }
        var keepWhenEmpty = false
        if let value = object.take(SectionMember.keepWhenEmpty) {
            if case .bool(let flag) = value {
                keepWhenEmpty = flag
            } else {
                log.wrongType(at: object.memberPath(SectionMember.keepWhenEmpty), expected: "true or false", found: value)
            }
        }
        var form: String?
        if let value = object.take(SectionMember.form) {
            if case .string(let name) = value, Self.isSafeID(name) {
                form = name
            } else {
                log.add(.structure, at: object.memberPath(SectionMember.form), "a form's name is \(Self.safeIDRule), such as \"signin\"")
            }
        }
        let rows = readArray(object.require(SectionMember.rows, log: &log), path: object.memberPath(SectionMember.rows), of: "rows") {
            $0.readRow($1, path: $2)
        }
        object.reportUnread(log: &log)
        guard let id else { return nil }
        return SectionDefinition(
            id: id, header: header, footer: footer, visibleWhen: visibleWhen, keepWhenEmpty: keepWhenEmpty, rows: rows, form: form)
    }

    private mutating func headerFooter(_ json: JSONValue, path: String) -> HeaderFooterDefinition? {
        guard var object = DefinitionObject(json, path: path, log: &log) else { return nil }
        guard let kind = object.requireString("kind", log: &log) else { return nil }
        let fieldTypes: [(name: String, type: ScalarType, required: Bool)]
        if let builtIn = Self.builtInHeaderFooterFields[kind] {
            fieldTypes = builtIn
        } else if let declaration = kinds[kind] {
            fieldTypes = declaration.fields.keys.sorted().compactMap { name in declaration.fields[name].map { (name, $0, true) } }
        } else {
            log.add(
                .unknownKind, at: path + ".kind",
                "unknown kind \"\(kind)\"; headers and footers are \(HeaderFooter.builtInKinds.joined(separator: ", ")) or a kind declared under \"kinds\"")
            return nil
        }
        let fields = readFields(&object, fieldTypes, scope: stateScope)
        object.reportUnread(log: &log)
        return HeaderFooterDefinition(kind: kind, fields: fields)
    }

    /// Reads each element of an array with `read(reader, element, elementPath)`.
    private mutating func readArray<Element>(
        _ value: JSONValue?, path: String, of what: String,
        _ read: (inout DefinitionReader, JSONValue, String) -> Element?
    ) -> [Element] {
        guard let value else { return [] }
        guard case .array(let elements) = value else {
            log.wrongType(at: path, expected: "an array of \(what)", found: value)
            return []
        }
        return elements.enumerated().compactMap { index, element in read(&self, element, "\(path)[\(index)]") }
    }

    /// Reads a kind's fields from an object: each required one must be present.
    mutating func readFields(
        _ object: inout DefinitionObject, _ fieldTypes: [(name: String, type: ScalarType, required: Bool)],
        scope: ExpressionScope
    ) -> [String: FieldSource] {
        var fields: [String: FieldSource] = [:]
        for (name, type, required) in fieldTypes {
            let value = required ? object.require(name, log: &log) : object.take(name)
            if let value, let source = source(value, type: type, path: object.memberPath(name), scope: scope) {
                fields[name] = source
            }
        }
        return fields
    }
}
