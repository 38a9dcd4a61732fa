/// Renders a screen definition at a session state: the wire-model screen a client shows.
///
/// Hidden rows (`visibleWhen` false) are left out; a section whose `visibleWhen` is false,
/// or none of whose rows is visible, is left out unless it says `keepWhenEmpty`. A row is
/// `selectable` when it has `onSelect` and `deletable` when it has `onDelete`. Heights
/// that evaluate below zero are written as zero. The screen's revision is the state's, and
/// its `definition` the definition's id. The definition reads the state
/// ``ScreenDefinition/conformed(_:)``: a key it declares that the state lacks or holds as
/// another type reads as the declared default. A client that lists the kinds it draws gets
/// each row as ``RowDefinition/shown(drawing:)`` says: as its kind, as a fallback, or not
/// at all. An item screen shows the item of its list with the id `item` (and carries the
/// id); its expressions read an item its list does not hold as empty fields.
public func render(_ definition: ScreenDefinition, _ state: SessionState, item: String? = nil) -> Screen {
    let state = definition.conformed(state)
    let screenItem = definition.item(item, in: state)
    let stateContext = definition.context(state, screenItem: screenItem)
    var screen = Screen(
        id: definition.id, title: definition.title.evaluate(stateContext), revision: state.revision,
        definition: definition.definitionID, item: definition.item == nil ? nil : item, style: definition.style)
    screen.sections.reserveCapacity(definition.sections.count)
    for sectionDefinition in definition.sections {
        if let section = render(sectionDefinition, definition, state, screenItem: screenItem) { screen.sections.append(section) }
    }
    return screen
}

/// Renders a definition at a state given the screen it rendered at another state: sections
/// and rows that read no state key whose value differs are taken from `previous`. The result
/// equals `render(definition, state)` when `previous == render(definition, previousState)`.
public func render(
    _ definition: ScreenDefinition, _ state: SessionState, reusing previous: Screen, renderedAt previousState: SessionState
) -> Screen {
    render(definition, state, reusing: previous, renderedAt: previousState, changedKeys: nil)
}

/// ``render(_:_:reusing:renderedAt:)`` told which keys' values differ between the two
/// states (a ``Reduction/changedKeys``; any list that holds them all will do): the states'
/// values are not compared. A hook of the service's event path, not part of the engine's API.
package func render(
    _ definition: ScreenDefinition, _ state: SessionState, reusing previous: Screen, renderedAt previousState: SessionState,
    changedKeys: [String]
) -> Screen {
    render(definition, state, reusing: previous, renderedAt: previousState, changedKeys: Optional(changedKeys))
}

private func render(
    _ definition: ScreenDefinition, _ state: SessionState, reusing previous: Screen, renderedAt previousState: SessionState,
    changedKeys: [String]?
) -> Screen {
    let item = previous.item
    // Another client context can change any row's kind, and every text.
    guard state.client == previousState.client else { return render(definition, state, item: item) }
    let state = definition.conformed(state)
    let previousState = definition.conformed(previousState)
    let screenItem = definition.item(item, in: state)
    let masks = definition.dependencyMasks
    let changed =
        if let changedKeys { masks.changed(changedKeys, marksChanged: state.marks != previousState.marks) } else {
            masks.changed(state, since: previousState)
        }
    var screen = previous
    screen.revision = state.revision
    if masks.title & changed != 0 {
        screen.title = definition.title.evaluate(definition.context(state, screenItem: screenItem))
    }
    guard changed != 0 else { return screen }
    screen.sections = []
    screen.sections.reserveCapacity(previous.sections.count)
    var cursor = 0  // previous sections appear in definition order
    for (sectionDefinition, sectionMasks) in zip(definition.sections, masks.sections) {
        let earlier: Section? = cursor < previous.sections.count && previous.sections[cursor].id == sectionDefinition.id ? previous.sections[cursor] : nil
        if earlier != nil { cursor += 1 }
        if sectionMasks.section & changed == 0 {
            if let earlier { screen.sections.append(earlier) }
        } else if let section = render(
            sectionDefinition, definition, state, screenItem: screenItem, reusing: earlier, masks: sectionMasks, changed: changed)
        {
            screen.sections.append(section)
        }
    }
    return screen
}

/// One section, or `nil` when it is hidden or empty (and not kept). Given `earlier`, the
/// section as it was on screen at a state differing only in the `changed` keys, a header,
/// footer, row or `forEach` instance that reads none of them is what it was: taken from
/// `earlier` (rows by id; a row `earlier` lacks was hidden and still is). A `forEach` row
/// whose selection alone read a changed key shows other items, each drawn as before: the
/// ones `earlier` has are taken from it, the others rendered. Only the others are rendered.
private func render(
    _ sectionDefinition: SectionDefinition, _ definition: ScreenDefinition, _ state: SessionState, screenItem: Record?,
    reusing earlier: Section? = nil, masks: DependencyMasks.SectionMasks? = nil, changed: UInt64 = 0
) -> Section? {
    let stateContext = definition.context(state, screenItem: screenItem)
    guard sectionDefinition.visibleWhen?.isTrue(stateContext) ?? true else { return nil }
    if let earlier, let masks, masks.rowStructure & changed == 0 {
        return patch(earlier, sectionDefinition, definition, state, stateContext, masks: masks, changed: changed)
    }
    func reusable(_ dependencies: UInt64?) -> Section? {
        if let dependencies, dependencies & changed == 0 { earlier } else { nil }
    }
    let header: HeaderFooter? =
        if let reused = reusable(masks?.header) { reused.header } else { sectionDefinition.header.map { $0.render(stateContext) } }
    let footer: HeaderFooter? =
        if let reused = reusable(masks?.footer) { reused.footer } else { sectionDefinition.footer.map { $0.render(stateContext) } }
    var section = Section(id: sectionDefinition.id, header: header, footer: footer)
    section.rows.reserveCapacity(max(earlier?.rows.count ?? 0, sectionDefinition.rows.count))
    var earlierRows: EarlierRows?  // built when the first row is reused
    for (index, rowDefinition) in sectionDefinition.rows.enumerated() {
        let unchangedIn = reusable(masks?.rows[index])
        let drawnAlikeIn = unchangedIn == nil && rowDefinition.forEach != nil ? reusable(masks?.rowContent[index]) : nil
        definition.forEachInstance(of: rowDefinition, state, screenItem: screenItem) { _, context in
            if let unchangedIn {
                if earlierRows == nil { earlierRows = EarlierRows(unchangedIn.rows) }
                if let row = earlierRows?.row(id: rowDefinition.id.evaluate(context)) { section.rows.append(row) }
                return
            }
            if let drawnAlikeIn {
                if earlierRows == nil { earlierRows = EarlierRows(drawnAlikeIn.rows) }
                if let row = earlierRows?.row(id: rowDefinition.id.evaluate(context)) {
                    section.rows.append(row)
                    return
                }
            }
            guard rowDefinition.visibleWhen?.isTrue(context) ?? true, let shown = rowDefinition.shown(drawing: state.client.kinds) else { return }
            section.rows.append(shown.render(context, in: definition))
        }
    }
    return !section.rows.isEmpty || sectionDefinition.keepWhenEmpty ? section : nil
}

/// A section as it was on screen, with what reads a `changed` key rendered again. No row's
/// visibility, list or id reads one, so the section has the same rows in the same order:
/// those that read a changed key are replaced where they are, and a hidden one stays hidden.
private func patch(
    _ earlier: Section, _ sectionDefinition: SectionDefinition, _ definition: ScreenDefinition, _ state: SessionState,
    _ stateContext: EvaluationContext, masks: DependencyMasks.SectionMasks, changed: UInt64
) -> Section {
    var section = earlier
    if masks.header & changed != 0 { section.header = sectionDefinition.header.map { $0.render(stateContext) } }
    if masks.footer & changed != 0 { section.footer = sectionDefinition.footer.map { $0.render(stateContext) } }
    var earlierRows: EarlierRows?  // built when the first row is rendered again
    for (rowDefinition, rowMask) in zip(sectionDefinition.rows, masks.rows) where rowMask & changed != 0 {
        definition.forEachInstance(of: rowDefinition, state, screenItem: stateContext.screenItem) { _, context in
            if earlierRows == nil { earlierRows = EarlierRows(earlier.rows) }
            if let position = earlierRows?.position(id: rowDefinition.id.evaluate(context)), let shown = rowDefinition.shown(drawing: state.client.kinds) {
                section.rows[position] = shown.render(context, in: definition)
            }
        }
    }
    return section
}

/// The rows of a section as it was on screen, found by id (row ids are unique on a screen).
/// They are asked for in the order they were shown, so a search starts where the last one
/// ended: a small section costs about one pass and no hashing. A larger one gets a
/// dictionary, so that rows hidden then, searched for in vain, cannot make it quadratic.
private struct EarlierRows {
    static let largestScanned = 32
    private let rows: [Row]
    private let indexByID: [String: Int]?
    private var cursor = 0

    init(_ rows: [Row]) {
        self.rows = rows
        indexByID =
            rows.count > Self.largestScanned
            ? Dictionary(rows.indices.map { (rows[$0].id, $0) }, uniquingKeysWith: { first, _ in first }) : nil
    }

    mutating func row(id: String) -> Row? {
        position(id: id).map { rows[$0] }
    }

    mutating func position(id: String) -> Int? {
        if let indexByID { return indexByID[id] }
        var index = cursor
        for _ in rows.indices {
            if index == rows.count { index = 0 }
            if rows[index].id == id {
                cursor = index + 1
                return index
            }
            index += 1
        }
        return nil
    }
}

extension HeaderFooterDefinition {
    func render(_ context: EvaluationContext) -> HeaderFooter {
        let values = FieldReader(fields: fields, context: context)
        switch kind {
        case "titleHeader": return .titleHeader(title: values.string("title"))
        case "textFooter": return .textFooter(text: values.string("text"))
        default: return .custom(kind: kind, fields: fields.mapValues { $0.evaluate(context) })
        }
    }
}

extension RowDefinition {
    /// The row at a state; `screen` is the definition the row belongs to (an input row's
    /// error reads the screen's form marks and, for `equals`, its other rows). Without
    /// `error`, the row's rules are not checked (an event that only needs its control).
    func render(_ context: EvaluationContext, in screen: ScreenDefinition, error showsError: Bool = true) -> Row {
        let values = FieldReader(fields: fields, context: context)
        let enabled = enabledWhen?.isTrue(context) ?? true
        let id = id.evaluate(context)
        let content: RowContent
        var editable = false
        var error: String?
        if let inputKind = summarizedInputKind {
            content = inputContent(inputKind, values, context).asLeftRightTitles
        } else if isInput {
            content = inputContent(kind, values, context)
            editable = enabled && (onEdit != nil || content.isSecureText)
            if showsError { error = shownError(content, id: id, context: context, screen: screen) }
        } else {
            content = displayContent(values)
        }
        return Row(
            id: id, content: content, selectable: onSelect != nil, deletable: onDelete != nil, enabled: enabled,
            editable: editable, error: error, accessory: accessory, height: height.map { Self.dimension($0, context) },
            estimatedHeight: estimatedHeight.map { Self.dimension($0, context) }, movable: onMove != nil,
            leadingActions: leadingActions.isEmpty ? [] : leadingActions.compactMap { $0.render(context) },
            trailingActions: trailingActions.isEmpty ? [] : trailingActions.compactMap { $0.render(context) },
            accessibility: accessibility.render(context))
    }

    /// An input row's control as it stands at a state, without the texts that label it
    /// (its title and placeholder are `""`/`nil`): what an edit's hard limits and a form's
    /// values read, for less than a whole row.
    func control(_ context: EvaluationContext) -> RowContent {
        inputContent(kind, FieldReader(fields: fields, context: context), context, labelled: false)
    }

    /// What the backend said of the row, if it said something since the row's last edit or
    /// its form's last submit; else the message of the first rule the row's value fails,
    /// once the row is touched: for a secure field, of the rule its last value seen failed
    /// (an empty value's, if none was seen); for another row, of the rule it fails now, or
    /// failed at its form's last submit against a secure field's value.
    private func shownError(_ content: RowContent, id: String, context: EvaluationContext, screen: ScreenDefinition) -> String? {
        let marks = context.state.marks
        guard !validate.isEmpty || !marks.backendErrors.isEmpty else { return nil }
        let key = FormMarks.key(screen: screen.id, row: id)
        if let message = marks.backendErrors[key] { return message }
        guard !validate.isEmpty, marks.touched.contains(key) else { return nil }
        let results = marks.secureResults
        let kept = results.isEmpty ? nil : results[key]
        let verdict = keptVerdict(kept, secure: content.isSecureText)
        // The kept failure's message, written at this state.
        let keptFailure = verdict == false ? kept.map { validate[$0].message.evaluate(context) } : nil
        if content.isSecureText {
            if verdict != nil { return keptFailure }
            return firstFailure(of: .string(""), context: context) { _ in nil }
        }
        return firstFailure(of: content.inputValue, context: context) { screen.inputValue(ofRow: $0, context.state, screenItem: context.screenItem) }
            ?? keptFailure
    }

    private func displayContent(_ values: FieldReader) -> RowContent {
        let content: RowContent
        switch kind {
        case "basic": content = .basic(title: values.string("title"))
        case "subtitle":
            content = .subtitle(
                title: values.string("title"), subtitle: values.string("subtitle"),
                image: fields["image"] == nil ? nil : values.string("image"))
        case "leftRightTitles": content = .leftRightTitles(leftTitle: values.string("leftTitle"), rightTitle: values.string("rightTitle"))
        case "titleSwitch": content = .titleSwitch(title: values.string("title"), isOn: values.bool("isOn"))
        case "checkmark": content = .checkmark(title: values.string("title"), isChecked: values.bool("isChecked"))
        case "empty": content = .empty
        case "button": content = .button(title: values.string("title"), style: ButtonStyle(rawValue: values.string("style")) ?? .default)
        default: content = .custom(kind: kind, fields: fields.mapValues { $0.evaluate(values.context) })
        }
        return content
    }

    /// An input kind's content. A choice's `""` and a date's `""` are no choice (`nil`); a
    /// secure text field shows no text. Not `labelled`: without title and placeholder. The
    /// control shows only what it can hold, whatever the state says (a backend may write any
    /// string or number there): a choice that is not one of its options, or a date not in its
    /// mode's format, as none; a number or a date outside `min`…`max` at the nearer end.
    private func inputContent(_ kind: String, _ values: FieldReader, _ context: EvaluationContext, labelled: Bool = true) -> RowContent {
        func optionalString(_ name: String) -> String? { fields[name] == nil ? nil : values.string(name) }
        func label(_ name: String) -> String { labelled ? values.string(name) : "" }
        func optionalLabel(_ name: String) -> String? { labelled ? optionalString(name) : nil }
        func chosen(_ name: String) -> String? {
            let text = values.string(name)
            return text.isEmpty ? nil : text
        }
        switch kind {
        case "textField":
            let secure = values.bool("secure")
            return .textField(
                TextFieldInput(
                    title: label("title"), text: secure ? "" : values.string("text"), placeholder: optionalLabel("placeholder"),
                    contentType: TextContentType(rawValue: values.string("contentType")) ?? .text, secure: secure,
                    multiline: values.bool("multiline"), maxLength: fields["maxLength"].map { _ in Int(values.number("maxLength")) }))
        case "slider", "stepper":
            var number = NumberInput(
                title: optionalLabel("title"), value: 0, min: values.number("min"), max: values.number("max"), step: values.number("step"))
            number.value = number.shown(values.number("value"))
            return kind == "slider" ? .slider(number) : .stepper(number)
        case "picker", "segmented":
            let options = options?.evaluate(context) ?? []
            let selected = chosen("selected").flatMap { id in options.contains { $0.id == id } ? id : nil }
            let choice = ChoiceInput(title: optionalLabel("title"), options: options, selected: selected)
            return kind == "picker" ? .picker(choice) : .segmented(choice)
        default:
            var date = DateInput(
                title: label("title"), mode: DateMode(rawValue: values.string("mode")) ?? .date, value: nil, min: optionalString("min"),
                max: optionalString("max"))
            date.value = date.shown(chosen("value"))
            return .datePicker(date)
        }
    }

    private static func dimension(_ expression: Expression, _ context: EvaluationContext) -> Double {
        if case .number(let value) = expression.evaluate(context) { return max(value, 0) }
        return 0
    }
}

/// Evaluates a definition's fields one at a time, as a kind's constructor asks for them
/// (no dictionary of values built per row).
private struct FieldReader {
    let fields: [String: FieldSource]
    let context: EvaluationContext

    func string(_ name: String) -> String {
        switch fields[name] {
        case .template(let template)?: return template.evaluate(context)
        case .expression(let expression)?:
            if case .string(let text) = expression.evaluate(context) { return text }
            return ""
        case nil: return ""
        }
    }

    func bool(_ name: String) -> Bool {
        guard case .expression(let expression)? = fields[name] else { return false }
        return expression.isTrue(context)
    }

    /// A number field's value; 0 when it is missing or does not evaluate to a finite number.
    func number(_ name: String) -> Double {
        guard case .expression(let expression)? = fields[name], case .number(let value) = expression.evaluate(context), value.isFinite else {
            return 0
        }
        return value
    }
}
