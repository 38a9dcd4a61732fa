import Foundation
import TabulaCore
import TabulaSQLite
import TabulaTestSupport
import Testing

@testable import TabulaService

/// The writer's batch: what it records for later jobs, and what a rolled-back job takes back.
@Suite struct SQLiteWriterBatchTests {
    func openStatements() throws -> (SQLiteStatements, URL) {
        let directory = try makeTemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path + "/tabula.sqlite")
        try SQLiteSchema.migrate(database)
        let statements = try SQLiteStatements(database, ringSize: 4)
        return (statements, directory)
    }

    /// A job rolled back to its savepoint takes back what it recorded, newest first, and
    /// leaves what earlier jobs of the batch recorded.
    @Test func aRolledBackJobTakesBackOnlyItsOwnChanges() throws {
        let (statements, directory) = try openStatements()
        defer { try? FileManager.default.removeItem(at: directory) }
        let batch = SQLiteBatch(statements: statements, cache: SessionStateCache(maxBytes: 1 << 20))

        batch.beginJob()
        batch.setChanged(SessionKey("kept"), digest: "kept", SessionState(revision: 1))
        batch.setRemoved(digest: "gone")

        batch.beginJob()
        batch.setChanged(SessionKey("kept"), digest: "kept", SessionState(revision: 2))
        batch.setChanged(SessionKey("new"), digest: "new", SessionState(revision: 1))
        batch.setChanged(SessionKey("new"), digest: "new", SessionState(revision: 2))
        batch.setRemoved(digest: "kept")
        batch.setRemoved(digest: "gone")
        batch.setChanged(SessionKey("gone"), digest: "gone", SessionState(revision: 7))
        #expect(batch.changed.keys.sorted() == ["gone", "new"])
        batch.undoJob()

        #expect(batch.changed.mapValues(\.state.revision) == ["kept": 1])
        #expect(batch.removed == ["gone"])
        #expect(try batch.currentState(SessionKey("kept"), digest: "kept")?.revision == 1)
        #expect(try batch.currentState(SessionKey("gone"), digest: "gone") == nil)
        #expect(try batch.currentState(SessionKey("new"), digest: "new") == nil)

        // The next job starts with nothing to take back.
        batch.beginJob()
        batch.undoJob()
        #expect(batch.changed.mapValues(\.state.revision) == ["kept": 1])
        #expect(batch.removed == ["gone"])
    }
}
