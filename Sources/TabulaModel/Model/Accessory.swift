/// The accessory view a client shows at a row's trailing edge.
public enum Accessory: String, CaseIterable, Hashable, Sendable {
    case none
    case disclosureIndicator
    case detailButton
    case checkmark
}
