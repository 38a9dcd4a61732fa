/// A form: the input rows of the sections that name it. `valid('FORM')` judges it, the
/// `submit` action touches and checks it, `reset` clears it.
extension ScreenDefinition {
    /// One input row of a form as it is at a state: its definition, its item, its id and
    /// its control (``RowDefinition/control(_:)``: its value and limits, not its labels).
    struct FormInput {
        let definition: RowDefinition
        let item: Record?
        let id: String
        let content: RowContent
    }

    /// The input rows of a form the client sees at a state: in sections that name it and
    /// are shown, visible, and drawn as inputs. `screenItem` is an item screen's item.
    func formInputs(_ form: String, _ state: SessionState, screenItem: Record? = nil) -> [FormInput] {
        var inputs: [FormInput] = []
        let stateContext = context(state, screenItem: screenItem)
        for section in sections where section.form == form && (section.visibleWhen?.isTrue(stateContext) ?? true) {
            for row in section.rows where row.isInput && row.shown(drawing: state.client.kinds) === row {
                forEachInstance(of: row, state, screenItem: screenItem) { item, context in
                    guard row.visibleWhen?.isTrue(context) ?? true else { return }
                    inputs.append(FormInput(definition: row, item: item, id: row.id.evaluate(context), content: row.control(context)))
                }
            }
        }
        return inputs
    }

    /// Whether every input row of the form the client sees passes its rules, touched or
    /// not; a secure row passes only once a value that passed was seen.
    public func isFormValid(_ form: String, _ state: SessionState, screenItem: Record? = nil) -> Bool {
        formInputs(form, state, screenItem: screenItem).allSatisfy { input in
            var context = context(state, screenItem: screenItem)
            context.item = input.item
            let secure = input.content.isSecureText
            let kept = input.definition.keptVerdict(state.marks.secureResults[FormMarks.key(screen: id, row: input.id)], secure: secure)
            if secure { return kept == true }
            if kept == false { return false }
            return input.definition.firstFailingRule(of: input.content.inputValue, context: context) {
                inputValue(ofRow: $0, state, screenItem: screenItem)
            } == nil
        }
    }

    /// Whether the screen (on an item screen, showing the item `item`) shows an input row
    /// with this id at a state (hidden or not): a row a backend may put an error on.
    public func hasInputRow(_ id: String, _ state: SessionState, item: String? = nil) -> Bool {
        rowInstance(id, state, screenItem: self.item(item, in: state))?.definition.isInput ?? false
    }

    /// The marks (``FormMarks/key(screen:row:)``) that `marks` holds for input rows of a form,
    /// shown or not: a row hidden now, or an item its list's selection leaves out, keeps its
    /// mark until the form is reset.
    func formMarks(_ form: String, in marks: FormMarks, _ state: SessionState) -> Set<String> {
        let prefix = FormMarks.key(screen: id, row: "")
        var held = marks.touched
        held.formUnion(marks.secureResults.keys)
        held.formUnion(marks.backendErrors.keys)
        return held.filter { mark in mark.hasPrefix(prefix) && isInputRow(String(mark.dropFirst(prefix.count)), of: form, state) }
    }

    /// Whether the row with this id at a state (shown or not) is an input row of a section
    /// that names the form.
    func isInputRow(_ id: String, of form: String, _ state: SessionState) -> Bool {
        guard let (position, _) = rowLocator.locate(id, in: state) else { return false }
        let section = sections[position.section]
        return section.form == form && section.rows[position.row].isInput
    }

    /// The state keys a form's rows store their values in.
    func formKeys(_ form: String) -> [String] {
        sections.filter { $0.form == form }.flatMap(\.rows).flatMap { $0.onEdit?.storedKeys ?? [] }
    }
}

extension ScreenDefinition {
    /// A form's values as the client sees them, secure rows left out: what a submit's feed
    /// entry carries.
    public func formValues(_ form: String, _ state: SessionState, item: String? = nil) -> [(row: String, value: InputValue)] {
        formValues(form, state, screenItem: self.item(item, in: state))
    }

    func formValues(_ form: String, _ state: SessionState, screenItem: Record?) -> [(row: String, value: InputValue)] {
        formInputs(form, state, screenItem: screenItem).compactMap { input in
            guard !input.content.isSecureText, let value = input.content.inputValue else { return nil }
            return (input.id, value)
        }
    }
}
