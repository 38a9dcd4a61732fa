extension Screen {
    /// Decodes a screen from JSON bytes in the wire model and checks its identity rules.
    public init(jsonBytes: [UInt8]) throws(WireFormatError) {
        try self.init(json: try JSONValue.parseWire(jsonBytes))
    }

    /// Decodes a screen from a JSON value in the wire model and checks its identity rules.
    public init(json: JSONValue) throws(WireFormatError) {
        var reader = try WireObjectReader(json, path: "$")
        let id = try reader.string("id")
        let title = try reader.string("title")
        let revision =
            try reader.optional("revision").map { value throws(WireFormatError) in
                try WireObjectReader.nonNegativeInt(value, path: "$.revision")
            } ?? 0
        let definition = try reader.optionalString("definition")
        let item = try reader.optionalString("item")
        let style = try reader.enumeration("style", as: TableStyle.self)
        var sections: [Section] = []
        for (index, element) in try reader.array("sections").enumerated() {
            sections.append(try Section(json: element, path: "$.sections[\(index)]"))
        }
        try reader.rejectUnread()
        self.init(id: id, title: title, revision: revision, definition: definition, item: item, style: style, sections: sections)
        try validate()
    }
}

extension Section {
    /// Decodes a section in the wire model; `path` names it in errors.
    public init(json: JSONValue, path: String) throws(WireFormatError) {
        var reader = try WireObjectReader(json, path: path)
        let id = try reader.string("id")
        let header = try reader.optional("header").map { value throws(WireFormatError) in
            try HeaderFooter(json: value, path: path + ".header")
        }
        let footer = try reader.optional("footer").map { value throws(WireFormatError) in
            try HeaderFooter(json: value, path: path + ".footer")
        }
        var rows: [Row] = []
        for (index, element) in try reader.array("rows").enumerated() {
            rows.append(try Row(json: element, path: "\(path).rows[\(index)]"))
        }
        try reader.rejectUnread()
        self.init(id: id, header: header, footer: footer, rows: rows)
    }
}

extension HeaderFooter {
    /// Decodes a header or footer model; `path` names it in errors.
    public init(json: JSONValue, path: String) throws(WireFormatError) {
        var reader = try WireObjectReader(json, path: path)
        let kind = try reader.string("kind")
        switch kind {
        case "titleHeader": self = .titleHeader(title: try reader.string("title"))
        case "textFooter": self = .textFooter(text: try reader.string("text"))
        default:
            var fields: [String: FieldValue] = [:]
            for (key, value) in reader.unread {
                fields[key] = try WireObjectReader.fieldValue(value, path: reader.memberPath(key))
            }
            self = .custom(kind: kind, fields: fields)
            return
        }
        try reader.rejectUnread()
    }
}

extension Row {
    /// Decodes a row in the wire model; `path` names it in errors.
    ///
    /// `selectable`, `deletable`, `movable` and `editable` default to `false` when absent,
    /// `enabled` to `true` (as a server before them meant); the encoder always writes them.
    public init(json: JSONValue, path: String) throws(WireFormatError) {
        var reader = try WireObjectReader(json, path: path)
        let id = try reader.string("id")
        let kind = try reader.string("kind")
        let selectable = try reader.optionalBool("selectable") ?? false
        let deletable = try reader.optionalBool("deletable") ?? false
        let movable = try reader.optionalBool("movable") ?? false
        let leadingActions = try Self.swipeActions(&reader, "leadingActions")
        let trailingActions = try Self.swipeActions(&reader, "trailingActions")
        let accessibility = RowAccessibility(
            label: try reader.optionalString("accessibilityLabel"), hint: try reader.optionalString("accessibilityHint"),
            value: try reader.optionalString("accessibilityValue"))
        let enabled = try reader.optionalBool("enabled") ?? true
        let isInput = RowContent.inputKinds.contains(kind)
        let editable = isInput ? try reader.optionalBool("editable") ?? false : false
        let error = isInput ? try reader.optionalString("error") : nil
        let accessory = try reader.enumeration("accessory", as: Accessory.self)
        let height = try Self.dimension(&reader, "height")
        let estimatedHeight = try Self.dimension(&reader, "estimatedHeight")
        let content = try Self.content(kind: kind, reader: &reader)
        self.init(
            id: id, content: content, selectable: selectable, deletable: deletable, enabled: enabled,
            editable: editable, error: error, accessory: accessory, height: height, estimatedHeight: estimatedHeight, movable: movable,
            leadingActions: leadingActions, trailingActions: trailingActions, accessibility: accessibility)
    }

    private static func swipeActions(_ reader: inout WireObjectReader, _ key: String) throws(WireFormatError) -> [SwipeAction] {
        guard let value = reader.optional(key) else { return [] }
        let path = reader.memberPath(key)
        guard case .array(let elements) = value else {
            throw WireFormatError(path: path, problem: .wrongType(expected: "an array", found: value.typeName))
        }
        var actions: [SwipeAction] = []
        for (index, element) in elements.enumerated() {
            var action = try WireObjectReader(element, path: "\(path)[\(index)]")
            actions.append(
                SwipeAction(
                    id: try action.string("id"), title: try action.string("title"),
                    style: try action.enumeration("style", as: SwipeAction.Style.self) ?? .normal))
            try action.rejectUnread()
        }
        return actions
    }

    private static func dimension(_ reader: inout WireObjectReader, _ key: String) throws(WireFormatError) -> Double? {
        guard let value = try reader.optionalNumber(key) else { return nil }
        guard value >= 0 else { throw WireFormatError(path: reader.memberPath(key), problem: .negativeNumber) }
        return value
    }

    private static func content(kind: String, reader: inout WireObjectReader) throws(WireFormatError) -> RowContent {
        let content: RowContent
        switch kind {
        case "basic":
            content = .basic(title: try reader.string("title"))
        case "subtitle":
            content = .subtitle(
                title: try reader.string("title"), subtitle: try reader.string("subtitle"),
                image: try reader.optionalString("image"))
        case "leftRightTitles":
            content = .leftRightTitles(leftTitle: try reader.string("leftTitle"), rightTitle: try reader.string("rightTitle"))
        case "titleSwitch":
            content = .titleSwitch(title: try reader.string("title"), isOn: try reader.bool("isOn"))
        case "checkmark":
            content = .checkmark(title: try reader.string("title"), isChecked: try reader.bool("isChecked"))
        case "empty":
            content = .empty
        case "button":
            content = .button(
                title: try reader.string("title"),
                style: try reader.enumeration("style", as: ButtonStyle.self) ?? .default)
        case "textField":
            let maxLength = try reader.optional("maxLength").map { value throws(WireFormatError) in
                try WireObjectReader.nonNegativeInt(value, path: reader.memberPath("maxLength"))
            }
            content = .textField(
                TextFieldInput(
                    title: try reader.string("title"), text: try reader.string("text"), placeholder: try reader.optionalString("placeholder"),
                    contentType: try reader.enumeration("contentType", as: TextContentType.self) ?? .text,
                    secure: try reader.optionalBool("secure"), multiline: try reader.optionalBool("multiline") ?? false,
                    maxLength: maxLength))
        case "slider":
            content = .slider(try number(&reader, title: try reader.optionalString("title"), defaultStep: 0))
        case "stepper":
            content = .stepper(try number(&reader, title: try reader.string("title"), defaultStep: 1))
        case "picker":
            content = .picker(try choice(&reader, title: try reader.string("title")))
        case "segmented":
            content = .segmented(try choice(&reader, title: try reader.optionalString("title")))
        case "datePicker":
            content = .datePicker(
                DateInput(
                    title: try reader.string("title"), mode: try reader.enumeration("mode", as: DateMode.self) ?? .date,
                    value: try reader.optionalString("value"), min: try reader.optionalString("min"),
                    max: try reader.optionalString("max")))
        default:
            var fields: [String: FieldValue] = [:]
            for (key, value) in reader.unread {
                fields[key] = try WireObjectReader.fieldValue(value, path: reader.memberPath(key))
            }
            return .custom(kind: kind, fields: fields)
        }
        try reader.rejectUnread()
        return content
    }

    private static func number(_ reader: inout WireObjectReader, title: String?, defaultStep: Double) throws(WireFormatError) -> NumberInput {
        func required(_ key: String) throws(WireFormatError) -> Double {
            guard let value = try reader.optionalNumber(key) else { throw WireFormatError(path: reader.path, problem: .missingField(key)) }
            return value
        }
        return NumberInput(
            title: title, value: try required("value"), min: try required("min"), max: try required("max"),
            step: try reader.optionalNumber("step") ?? defaultStep)
    }

    private static func choice(_ reader: inout WireObjectReader, title: String?) throws(WireFormatError) -> ChoiceInput {
        var options: [ChoiceOption] = []
        let optionsPath = reader.memberPath("options")
        for (index, element) in try reader.array("options").enumerated() {
            var option = try WireObjectReader(element, path: "\(optionsPath)[\(index)]")
            options.append(ChoiceOption(id: try option.string("id"), title: try option.string("title")))
            try option.rejectUnread()
        }
        return ChoiceInput(title: title, options: options, selected: try reader.optionalString("selected"))
    }
}
