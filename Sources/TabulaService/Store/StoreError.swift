/// Why the store could not do what was asked.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The store cannot be reached or refused for now: the API answers 503, and a
        /// retry may succeed.
        case unavailable
        /// What the store holds does not read back as what was written (a damaged page, a
        /// row that does not decode): the API answers 500 `store-corrupt` and writes
        /// nothing over it. Retrying will not help; restoring from a backup will.
        case corrupt
    }

    public var kind: Kind
    public var description: String

    public init(_ description: String, kind: Kind = .unavailable) {
        self.description = description
        self.kind = kind
    }

    public static func corrupt(_ description: String) -> StoreError {
        StoreError(description, kind: .corrupt)
    }
}
