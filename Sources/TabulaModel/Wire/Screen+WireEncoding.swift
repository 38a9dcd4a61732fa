extension Screen {
    /// The screen in the wire model: compact JSON, keys in ascending byte order, the same
    /// bytes for the same screen every time.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 128 + rowCount * 96)
        writer.write(self)
        return writer.bytes
    }
}

extension JSONWriter {
    package mutating func write(_ screen: Screen) {
        beginObject()
        if let definition = screen.definition {
            key("definition"); string(definition)
        }
        key("id"); string(screen.id)
        if let item = screen.item {
            key("item"); string(item)
        }
        key("revision"); int(screen.revision)
        key("sections")
        beginArray()
        for section in screen.sections { write(section) }
        endArray()
        if let style = screen.style {
            key("style"); string(style.rawValue)
        }
        key("title"); string(screen.title)
        endObject()
    }

    package mutating func write(_ section: Section) {
        beginObject()
        if let footer = section.footer {
            key("footer"); write(footer)
        }
        if let header = section.header {
            key("header"); write(header)
        }
        key("id"); string(section.id)
        key("rows")
        beginArray()
        for row in section.rows { write(row) }
        endArray()
        endObject()
    }

    package mutating func write(_ model: HeaderFooter) {
        writeSortedObject(common: [("kind", .string(model.kind))], fields: model.fields.map { ($0.name, $0.value.json) })
    }

    package mutating func write(_ row: Row) {
        // Keys in ascending byte order: accessibilityHint, accessibilityLabel,
        // accessibilityValue, accessory, deletable, enabled, estimatedHeight, height, id,
        // [image, isChecked, isOn], kind, leadingActions, [leftTitle], movable,
        // [rightTitle], selectable, [style, subtitle, title], trailingActions. The display
        // kinds are written field by field (no array per row); input and custom kinds merge
        // their sorted fields with the common keys.
        switch row.content {
        case .custom, .textField, .slider, .stepper, .picker, .segmented, .datePicker:
            writeSortedObject(common: commonFields(row), fields: row.content.fields)
            return
        default:
            break
        }
        beginObject()
        if let hint = row.accessibility.hint { key("accessibilityHint"); string(hint) }
        if let label = row.accessibility.label { key("accessibilityLabel"); string(label) }
        if let value = row.accessibility.value { key("accessibilityValue"); string(value) }
        if let accessory = row.accessory { key("accessory"); string(accessory.rawValue) }
        key("deletable"); bool(row.deletable)
        key("enabled"); bool(row.enabled)
        if let estimatedHeight = row.estimatedHeight { key("estimatedHeight"); number(estimatedHeight) }
        if let height = row.height { key("height"); number(height) }
        key("id"); string(row.id)
        switch row.content {
        case .subtitle(_, _, let image?): key("image"); string(image)
        case .checkmark(_, let isChecked): key("isChecked"); bool(isChecked)
        case .titleSwitch(_, let isOn): key("isOn"); bool(isOn)
        default: break
        }
        key("kind"); string(row.kind)
        if !row.leadingActions.isEmpty { key("leadingActions"); write(row.leadingActions) }
        if case .leftRightTitles(let leftTitle, _) = row.content { key("leftTitle"); string(leftTitle) }
        key("movable"); bool(row.movable)
        if case .leftRightTitles(_, let rightTitle) = row.content { key("rightTitle"); string(rightTitle) }
        key("selectable"); bool(row.selectable)
        switch row.content {
        case .button(let title, let style):
            key("style"); string(style.rawValue)
            key("title"); string(title)
        case .subtitle(let title, let subtitle, _):
            key("subtitle"); string(subtitle)
            key("title"); string(title)
        case .basic(let title), .titleSwitch(let title, _), .checkmark(let title, _):
            key("title"); string(title)
        default:
            break
        }
        if !row.trailingActions.isEmpty { key("trailingActions"); write(row.trailingActions) }
        endObject()
    }

    private mutating func write(_ actions: [SwipeAction]) {
        beginArray()
        for action in actions {
            beginObject()
            key("id"); string(action.id)
            key("style"); string(action.style.rawValue)
            key("title"); string(action.title)
            endObject()
        }
        endArray()
    }

    /// The keys every row carries, sorted; `editable` and `error` only on input rows.
    private func commonFields(_ row: Row) -> [(name: String, value: JSONValue)] {
        var common: [(name: String, value: JSONValue)] = []
        common.reserveCapacity(12)
        if let hint = row.accessibility.hint { common.append(("accessibilityHint", .string(hint))) }
        if let label = row.accessibility.label { common.append(("accessibilityLabel", .string(label))) }
        if let value = row.accessibility.value { common.append(("accessibilityValue", .string(value))) }
        if let accessory = row.accessory { common.append(("accessory", .string(accessory.rawValue))) }
        common.append(("deletable", .bool(row.deletable)))
        if row.content.isInput { common.append(("editable", .bool(row.editable))) }
        common.append(("enabled", .bool(row.enabled)))
        if row.content.isInput, let error = row.error { common.append(("error", .string(error))) }
        if let estimatedHeight = row.estimatedHeight { common.append(("estimatedHeight", .number(estimatedHeight))) }
        if let height = row.height { common.append(("height", .number(height))) }
        common.append(("id", .string(row.id)))
        common.append(("kind", .string(row.kind)))
        if !row.leadingActions.isEmpty { common.append(("leadingActions", Self.json(row.leadingActions))) }
        common.append(("movable", .bool(row.movable)))
        common.append(("selectable", .bool(row.selectable)))
        if !row.trailingActions.isEmpty { common.append(("trailingActions", Self.json(row.trailingActions))) }
        return common
    }

    private static func json(_ actions: [SwipeAction]) -> JSONValue {
        .array(
            actions.map { action in
                .object(JSONObject(["id": .string(action.id), "style": .string(action.style.rawValue), "title": .string(action.title)]))
            })
    }

    /// Writes one object from two key-sorted lists, merging them so all keys stay sorted.
    private mutating func writeSortedObject(
        common: [(name: String, value: JSONValue)], fields: [(name: String, value: JSONValue)]
    ) {
        beginObject()
        var commonIndex = 0
        var fieldIndex = 0
        while commonIndex < common.count || fieldIndex < fields.count {
            let takeCommon: Bool
            if commonIndex == common.count {
                takeCommon = false
            } else if fieldIndex == fields.count {
                takeCommon = true
            } else {
                takeCommon = common[commonIndex].name.utf8Precedes(fields[fieldIndex].name)
            }
            let member = takeCommon ? common[commonIndex] : fields[fieldIndex]
            if takeCommon { commonIndex += 1 } else { fieldIndex += 1 }
            key(member.name)
            write(member.value)
        }
        endObject()
    }
}
