/// One row a definition gives for a state: its definition, its `forEach` item, its id,
/// and whether it is on screen. Events find their row among these, hidden ones included,
/// so that "hidden" and "unknown" are told apart.
struct RowInstance {
    let definition: RowDefinition
    let item: Record?
    let id: String
    let isVisible: Bool
    /// Whether its `enabledWhen` holds (always, without one).
    let isEnabled: Bool
}

extension ScreenDefinition {
    /// The row instance with this id at this state (hidden or not), or `nil`.
    func rowInstance(_ id: String, _ state: SessionState) -> RowInstance? {
        guard let (position, item) = rowLocator.locate(id, in: state) else { return nil }
        let section = sections[position.section]
        let row = section.rows[position.row]
        let context = EvaluationContext(state: state, item: item, strings: strings, screen: self)
        // A row the client does not draw, even as a fallback, is not on its screen.
        let sectionContext = EvaluationContext(state: state, strings: strings, screen: self)
        let visible =
            (section.visibleWhen?.isTrue(sectionContext) ?? true) && (row.visibleWhen?.isTrue(context) ?? true)
            && row.shown(drawing: state.client.kinds) != nil
            && (item.map { item in shownItems(of: row, state).contains { $0.id == item.id } } ?? true)
        return RowInstance(definition: row, item: item, id: id, isVisible: visible, isEnabled: row.enabledWhen?.isTrue(context) ?? true)
    }

    /// Calls `body` once per instance of a row: once, or once per item its `forEach` shows.
    func forEachInstance(of row: RowDefinition, _ state: SessionState, _ body: (Record?, EvaluationContext) -> Void) {
        if row.forEach != nil {
            for item in shownItems(of: row, state) { body(item, EvaluationContext(state: state, item: item, strings: strings, screen: self)) }
        } else {
            body(nil, EvaluationContext(state: state, strings: strings, screen: self))
        }
    }
}

extension ScreenDefinition {
    /// The items a `forEach` row shows, in the order shown: its list through its selection
    /// (before the row's `visibleWhen`); none for a row without `forEach`.
    func shownItems(of row: RowDefinition, _ state: SessionState) -> [Record] {
        guard let list = row.forEach else { return [] }
        let records = state.records(list)
        guard let selection = row.selection else { return records }
        return selection.items(records, EvaluationContext(state: state, strings: strings, screen: self))
    }

    /// The value an input row with this id shows at this state; `nil` for a secure field
    /// (whose value is never known), a row of another kind, or no such row.
    func inputValue(ofRow id: String, _ state: SessionState) -> InputValue? {
        guard let instance = rowInstance(id, state), instance.definition.isInput else { return nil }
        let context = EvaluationContext(state: state, item: instance.item, strings: strings, screen: self)
        let content = instance.definition.render(context, in: self, error: false).content
        return content.isSecureText ? nil : content.inputValue
    }

    /// Whether the row with this id, at this state, is a secure text field: one whose
    /// value the service never stores, logs or echoes.
    public func isSecureTextField(row id: String, _ state: SessionState) -> Bool {
        guard let instance = rowInstance(id, conformed(state)), instance.definition.kind == "textField",
            case .expression(let secure)? = instance.definition.fields["secure"]
        else { return false }
        return secure.isTrue(EvaluationContext(state: state, item: instance.item, strings: strings, screen: self))
    }
}
