/// Renders a screen definition at a session state: the wire-model screen a client shows.
///
/// Hidden rows (`visibleWhen` false) are left out; a section whose `visibleWhen` is false,
/// or none of whose rows is visible, is left out unless it says `keepWhenEmpty`. A row is
/// `selectable` when it has `onSelect` and `deletable` when it has `onDelete`. Heights
/// that evaluate below zero are written as zero. The screen's revision is the state's.
public func render(_ definition: ScreenDefinition, _ state: SessionState) -> Screen {
    let stateContext = EvaluationContext(state: state)
    var screen = Screen(
        id: definition.id, title: definition.title.evaluate(stateContext), revision: state.revision,
        style: definition.style)
    for sectionDefinition in definition.sections {
        guard sectionDefinition.visibleWhen?.isTrue(stateContext) ?? true else { continue }
        var section = Section(
            id: sectionDefinition.id,
            header: sectionDefinition.header.map { $0.render(stateContext) },
            footer: sectionDefinition.footer.map { $0.render(stateContext) })
        for rowDefinition in sectionDefinition.rows {
            definition.forEachInstance(of: rowDefinition, state) { _, context in
                guard rowDefinition.visibleWhen?.isTrue(context) ?? true else { return }
                section.rows.append(rowDefinition.render(context))
            }
        }
        if !section.rows.isEmpty || sectionDefinition.keepWhenEmpty {
            screen.sections.append(section)
        }
    }
    return screen
}

extension HeaderFooterDefinition {
    func render(_ context: EvaluationContext) -> HeaderFooter {
        let values = fields.mapValues { $0.evaluate(context) }
        switch kind {
        case "titleHeader": return .titleHeader(title: values.string("title"))
        case "textFooter": return .textFooter(text: values.string("text"))
        default: return .custom(kind: kind, fields: values)
        }
    }
}

extension RowDefinition {
    func render(_ context: EvaluationContext) -> Row {
        let values = fields.mapValues { $0.evaluate(context) }
        let content: RowContent
        switch kind {
        case "basic": content = .basic(title: values.string("title"))
        case "subtitle":
            content = .subtitle(
                title: values.string("title"), subtitle: values.string("subtitle"),
                image: values["image"].map { _ in values.string("image") })
        case "leftRightTitles": content = .leftRightTitles(leftTitle: values.string("leftTitle"), rightTitle: values.string("rightTitle"))
        case "titleSwitch": content = .titleSwitch(title: values.string("title"), isOn: values.bool("isOn"))
        case "checkmark": content = .checkmark(title: values.string("title"), isChecked: values.bool("isChecked"))
        case "empty": content = .empty
        case "button": content = .button(title: values.string("title"), style: ButtonStyle(rawValue: values.string("style")) ?? .default)
        default: content = .custom(kind: kind, fields: values)
        }
        return Row(
            id: id.evaluate(context), content: content, selectable: onSelect != nil, deletable: onDelete != nil,
            accessory: accessory, height: height.map { Self.dimension($0, context) },
            estimatedHeight: estimatedHeight.map { Self.dimension($0, context) })
    }

    private static func dimension(_ expression: Expression, _ context: EvaluationContext) -> Double {
        if case .number(let value) = expression.evaluate(context) { return max(value, 0) }
        return 0
    }
}

extension Dictionary where Key == String, Value == FieldValue {
    fileprivate func string(_ name: String) -> String {
        if case .string(let text)? = self[name] { return text }
        return ""
    }

    fileprivate func bool(_ name: String) -> Bool {
        if case .bool(let flag)? = self[name] { return flag }
        return false
    }
}
