extension Screen {
    /// The screen as its user sees it after changing an input row's value: the row's value
    /// field set to `value`, as the control already shows it (a secure field's copy keeps
    /// `""`: it never holds the value). The answer to an edit goes from this copy to the
    /// new screen, so a client applies it blindly and never overwrites what its user typed:
    /// the edited row is updated only when something else of it changed, and then carries
    /// the value the user entered. Unchanged when the screen has no such input row or the
    /// value is not of its type.
    public func showing(_ value: InputValue, inRow id: String) -> Screen {
        guard let path = path(ofRow: id) else { return self }
        let content = sections[path.section].rows[path.row].content
        guard !content.isSecureText, let edited = content.settingInputValue(value) else { return self }
        var screen = self
        screen.sections[path.section].rows[path.row].content = edited
        return screen
    }
}
