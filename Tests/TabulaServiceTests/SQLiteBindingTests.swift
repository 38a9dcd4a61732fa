import Foundation
import TabulaSQLite
import TabulaTestSupport
import Testing

/// Values bound to a statement's parameters arrive in the database as they were.
@Suite struct SQLiteBindingTests {
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
