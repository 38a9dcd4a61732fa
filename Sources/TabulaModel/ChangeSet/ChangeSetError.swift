/// Why a change set cannot be applied to a screen: it was not computed against it.
public struct ChangeSetError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String {
        "the change set does not fit this screen (\(message)); fetch the screen again"
    }
}
