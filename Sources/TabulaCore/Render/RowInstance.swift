/// One row a definition gives for a state: its definition, its item (its `forEach` item,
/// or on an item screen the screen's), its id, and whether it is on screen. Events find
/// their row among these, hidden ones included, so that "hidden" and "unknown" are told
/// apart.
struct RowInstance {
    let definition: RowDefinition
    let item: Record?
    /// The list `item` belongs to: what `remove` and `set` of `item.FIELD` change.
    let list: String?
    let id: String
    let isVisible: Bool
    /// Whether its `enabledWhen` holds (always, without one).
    let isEnabled: Bool
}

extension ScreenDefinition {
    /// The context a screen's parts outside `forEach` rows are evaluated in: the state and,
    /// on an item screen, its item.
    func context(_ state: SessionState, screenItem: Record?) -> EvaluationContext {
        EvaluationContext(state: state, item: screenItem, strings: strings, screen: self, screenItem: screenItem)
    }

    /// The row instance with this id at this state (hidden or not), or `nil`; `screenItem`
    /// is an item screen's item.
    func rowInstance(_ id: String, _ state: SessionState, screenItem: Record? = nil) -> RowInstance? {
        guard let (position, rowItem) = rowLocator.locate(id, in: state) else { return nil }
        let section = sections[position.section]
        let row = section.rows[position.row]
        let item = row.forEach == nil ? screenItem : rowItem
        var context = context(state, screenItem: screenItem)
        context.item = item
        // A row the client does not draw, even as a fallback, is not on its screen.
        let visible =
            (section.visibleWhen?.isTrue(self.context(state, screenItem: screenItem)) ?? true) && (row.visibleWhen?.isTrue(context) ?? true)
            && row.shown(drawing: state.client.kinds) != nil
            && (rowItem.map { item in shownItems(of: row, state, screenItem: screenItem).contains { $0.id == item.id } } ?? true)
        return RowInstance(
            definition: row, item: item, list: row.forEach ?? (screenItem == nil ? nil : self.item), id: id, isVisible: visible,
            isEnabled: row.enabledWhen?.isTrue(context) ?? true)
    }

    /// Calls `body` once per instance of a row: once (with an item screen's item), or once
    /// per item its `forEach` shows.
    func forEachInstance(of row: RowDefinition, _ state: SessionState, screenItem: Record? = nil, _ body: (Record?, EvaluationContext) -> Void) {
        var context = context(state, screenItem: screenItem)
        guard row.forEach != nil else { return body(screenItem, context) }
        for item in shownItems(of: row, state, screenItem: screenItem) {
            context.item = item
            body(item, context)
        }
    }
}

extension ScreenDefinition {
    /// The items a `forEach` row shows, in the order shown: its list through its selection
    /// (before the row's `visibleWhen`); none for a row without `forEach`.
    func shownItems(of row: RowDefinition, _ state: SessionState, screenItem: Record? = nil) -> [Record] {
        guard let list = row.forEach else { return [] }
        let records = state.records(list)
        guard let selection = row.selection else { return records }
        return selection.items(of: list, records, context(state, screenItem: screenItem))
    }

    /// The value an input row with this id shows at this state; `nil` for a secure field
    /// (whose value is never known), a row of another kind, or no such row.
    func inputValue(ofRow id: String, _ state: SessionState, screenItem: Record? = nil) -> InputValue? {
        guard let instance = rowInstance(id, state, screenItem: screenItem), instance.definition.isInput else { return nil }
        var context = context(state, screenItem: screenItem)
        context.item = instance.item
        let content = instance.definition.control(context)
        return content.isSecureText ? nil : content.inputValue
    }

    /// Whether the row with this id, at this state (on an item screen, showing the item
    /// `item`), is a secure text field: one whose value the service never stores, logs or
    /// echoes.
    public func isSecureTextField(row id: String, _ state: SessionState, item: String? = nil) -> Bool {
        let state = conformed(state)
        let screenItem = self.item(item, in: state)
        guard let instance = rowInstance(id, state, screenItem: screenItem), instance.definition.kind == "textField",
            case .expression(let secure)? = instance.definition.fields["secure"]
        else { return false }
        var context = context(state, screenItem: screenItem)
        context.item = instance.item
        return secure.isTrue(context)
    }
}
