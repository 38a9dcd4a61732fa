public import TabulaCore

/// A definition as a store keeps it: its id, its screen and its document
/// (``DefinitionDocument``).
public struct KeptDefinition: Sendable, Equatable {
    public var id: String
    public var screen: String
    public var document: [UInt8]

    public init(id: String, screen: String, document: [UInt8]) {
        self.id = id
        self.screen = screen
        self.document = document
    }

    /// The kept form of a definition the service serves.
    public init(_ definition: ScreenDefinition) {
        self.init(id: definition.definitionID, screen: definition.id, document: definition.document.bytes)
    }
}
