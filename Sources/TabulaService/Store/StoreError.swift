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
    /// The whole reason, for the operator's log.
    public var description: String
    /// What a client is told: the reason without the database's own message, which can name
    /// hosts, users, files and tables (and `/healthz` answers anyone).
    public var clientDescription: String

    public init(_ description: String, kind: Kind = .unavailable) {
        self.description = description
        self.clientDescription = description
        self.kind = kind
    }

    /// A failure the database reported while the store was `doing` something, in its own
    /// words: the log gets its `message`, a client only what failed. (Tabula's own words,
    /// such as what did not decode and in which session, are told whole, with the other
    /// initializer.)
    public init(_ doing: String, databaseMessage message: String, kind: Kind = .unavailable) {
        self.description = "\(doing): \(message)"
        self.clientDescription = "\(doing); the service's log has the database's message"
        self.kind = kind
    }

    public static func corrupt(_ description: String) -> StoreError {
        StoreError(description, kind: .corrupt)
    }
}
