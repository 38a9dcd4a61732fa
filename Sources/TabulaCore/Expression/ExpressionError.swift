/// Why an expression does not compile, and where: `offset` counts Unicode scalars from the
/// expression's first character (so column = offset + 1).
public struct ExpressionError: Error, Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// The text is not a well-formed expression.
        case syntax
        /// A name that is not a declared state key.
        case unknownStateKey
        /// Operands or results of the wrong type, or a member that a value does not have.
        case typeMismatch
        /// A message key that the default locale's table lacks, or a message call that does
        /// not give what the message's texts use.
        case unknownMessage
    }

    public var kind: Kind
    public var message: String
    public var offset: Int

    public init(_ message: String, at offset: Int, kind: Kind = .syntax) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }
}
