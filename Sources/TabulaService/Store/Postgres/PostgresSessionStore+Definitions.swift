import TabulaCore
import TabulaPlatform
import TabulaPostgres

/// The definitions served, kept for clients that still show them.
extension PostgresSessionStore {
    public func keepDefinitions(_ definitions: [KeptDefinition]) throws(StoreError) -> [String] {
        let time = now()
        let keep = settings.keepDefinitions
        let result = waitForCompletion { (completion: @escaping @Sendable (Result<[String], StoreError>) -> Void) in
            pool.submit(
                { connection throws(PostgresError) in
                    try connection.execute("BEGIN")
                    var removed: [String] = []
                    do throws(PostgresError) {
                        for definition in definitions {
                            try connection.execute(
                                """
                                INSERT INTO definitions(id, screen, document, served_ms)
                                VALUES ($1, $2, $3, GREATEST($4, (SELECT COALESCE(MAX(served_ms), 0) + 1 FROM definitions WHERE screen = $2)))
                                ON CONFLICT (id) DO UPDATE SET served_ms = excluded.served_ms
                                """,
                                [.text(definition.id), .text(definition.screen), .bytes(definition.document), .integer(time)])
                        }
                        for screen in Set(definitions.map(\.screen)).sorted() {
                            removed += try connection.execute(
                                """
                                DELETE FROM definitions WHERE screen = $1 AND id NOT IN (
                                    SELECT id FROM definitions WHERE screen = $1 ORDER BY served_ms DESC, id LIMIT $2)
                                RETURNING id
                                """,
                                [.text(screen), .integer(Int64(keep))]
                            ).rows.compactMap { $0[0].text }
                        }
                        try connection.execute("COMMIT")
                    } catch {
                        _ = try? connection.execute("ROLLBACK")
                        throw error
                    }
                    completion(.success(removed))
                }, failed: { completion(.failure($0)) })
        }
        return try (result ?? .failure(StoreError("the PostgreSQL pool closed"))).get()
    }

    public func keptDefinition(id: String, completion: @escaping @Sendable (Result<KeptDefinition?, StoreError>) -> Void) {
        pool.submit(
            { connection throws(PostgresError) in
                let row = try connection.execute("SELECT screen, document FROM definitions WHERE id = $1", [.text(id)]).rows.first
                guard let row, let screen = row[0].text else { return completion(.success(nil)) }
                completion(.success(KeptDefinition(id: id, screen: screen, document: row[1].bytes ?? [])))
            }, failed: { completion(.failure($0)) })
    }
}
