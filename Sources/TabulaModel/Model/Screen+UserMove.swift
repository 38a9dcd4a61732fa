extension Screen {
    /// The screen as its user sees it after dragging the row `id` to `destination`, the
    /// index path it has after the drop (`tableView(_:moveRowAt:to:)`): the row taken out
    /// of its section and put back at `destination.row`. The answer to a move goes from this
    /// copy to the new screen, so the client never moves the row a second time.
    ///
    /// `nil` when the screen has no such row, or `destination` is in another section or past
    /// the end of the row's section.
    public func moving(row id: String, to destination: RowPath) -> Screen? {
        guard let source = path(ofRow: id), destination.section == source.section,
            destination.row >= 0, destination.row < sections[source.section].rows.count
        else { return nil }
        var screen = self
        let row = screen.sections[source.section].rows.remove(at: source.row)
        screen.sections[source.section].rows.insert(row, at: destination.row)
        return screen
    }
}
