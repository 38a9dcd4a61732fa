/// What a `picker` or `segmented` row shows: options, and the one chosen (`nil`: none).
/// A picker always has a title; a segmented control's is optional.
public struct ChoiceInput: Hashable, Sendable {
    public var title: String?
    public var options: [ChoiceOption]
    /// The id of the chosen option, or `nil` when none is.
    public var selected: String?

    public init(title: String?, options: [ChoiceOption], selected: String?) {
        self.title = title
        self.options = options
        self.selected = selected
    }

    /// The title of the chosen option, or `""` when none is.
    public var selectedTitle: String {
        options.first { $0.id == selected }?.title ?? ""
    }
}

/// One option of a choice: the id an edit sends and the title the user sees.
public struct ChoiceOption: Hashable, Sendable {
    public var id: String
    public var title: String

    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}
