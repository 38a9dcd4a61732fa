/// An action a row reveals when the user swipes it (`UIContextualAction`): its id, which
/// the client sends back in an action event, its title and its style.
public struct SwipeAction: Hashable, Sendable {
    public enum Style: String, CaseIterable, Hashable, Sendable {
        case normal, destructive
    }

    public var id: String
    public var title: String
    public var style: Style

    public init(id: String, title: String, style: Style = .normal) {
        self.id = id
        self.title = title
        self.style = style
    }
}
