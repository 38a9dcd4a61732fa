import Foundation
import Testing
import TabulaCore
@testable import TabulaService
import TabulaSQLite
import TabulaTestSupport

/// The writer's batch and the values it binds.
@Suite struct SQLiteWriterBatchTests {
    func openStatements() throws -> (SQLiteStatements, URL) {
        let directory = try makeTemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path + "/tabula.sqlite")
        try SQLiteSchema.migrate(database)
        let statements = try SQLiteStatements(database, schema: try flipCatalogue().schema, ringSize: 4)
        return (statements, directory)
    }

    /// A job rolled back to its savepoint takes back what it recorded, newest first, and
    /// leaves what earlier jobs of the batch recorded.
    @Test func aRolledBackJobTakesBackOnlyItsOwnChanges() throws {
        let (statements, directory) = try openStatements()
        defer { try? FileManager.default.removeItem(at: directory) }
        let batch = SQLiteBatch(statements: statements, cache: SessionStateCache(maxEntries: 10))

        batch.beginJob()
        batch.setChanged("kept", SessionState(revision: 1))
        batch.setRemoved("gone")

        batch.beginJob()
        batch.setChanged("kept", SessionState(revision: 2))
        batch.setChanged("new", SessionState(revision: 1))
        batch.setChanged("new", SessionState(revision: 2))
        batch.setRemoved("kept")
        batch.setRemoved("gone")
        batch.setChanged("gone", SessionState(revision: 7))
        #expect(batch.changed.keys.sorted() == ["gone", "new"])
        batch.undoJob()

        #expect(batch.changed.mapValues(\.revision) == ["kept": 1])
        #expect(batch.removed == ["gone"])
        #expect(try batch.currentState("kept")?.revision == 1)
        #expect(try batch.currentState("gone") == nil)
        #expect(try batch.currentState("new") == nil)

        // The next job starts with nothing to take back.
        batch.beginJob()
        batch.undoJob()
        #expect(batch.changed.mapValues(\.revision) == ["kept": 1])
        #expect(batch.removed == ["gone"])
    }

    /// Text is bound by its UTF-8 bytes and length: the empty string stays text (a null
    /// pointer would bind NULL), and non-ASCII and NUL bytes arrive whole.
    @Test(arguments: ["", "a", "Corner Café", "Napoléon 🚲", "nul\u{0}inside", String(repeating: "x", count: 5_000)])
    func textIsBoundWhole(text: String) throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try SQLiteDatabase(path: directory.path + "/values.sqlite")
        try database.execute("CREATE TABLE t (value)")
        try database.prepare("INSERT INTO t VALUES (?)").run([.text(text)])
        let rows = try database.prepare("SELECT typeof(value), length(CAST(value AS BLOB)), value FROM t").rows()
        #expect(rows.first?[0] == .text("text"))
        #expect(rows.first?[1] == .integer(Int64(text.utf8.count)))
        #expect(rows.first?[2] == .text(text))
    }
}
