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

    /// A failure the database reported while the store was `doing` something. The log gets
    /// its `message`; a client gets it too only when it is Tabula's own words (`isOwn`: what
    /// did not decode and in which session, a deadline), else only what failed.
    public init(_ doing: String, databaseMessage message: String, isOwn: Bool = false, kind: Kind = .unavailable) {
        self.description = "\(doing): \(message)"
        self.clientDescription = isOwn ? description : "\(doing); the service's log has the database's message"
        self.kind = kind
    }

    public static func corrupt(_ description: String) -> StoreError {
        StoreError(description, kind: .corrupt)
    }
}
