/// The style of a `button` row.
public enum ButtonStyle: String, CaseIterable, Hashable, Sendable {
    case `default`
    case destructive
}
