import Logging
import TabulaPlatform
import TabulaSQLite

/// SQLite's `PRAGMA quick_check` at start: it reads every page of the file and checks the
/// structure of every table and index (not that indexes match their tables, which
/// `integrity_check` adds at several times the cost). A damaged file would otherwise open
/// and serve: a damaged page reads as missing rows or as a row that does not decode, and
/// an event would commit on top of what was left. `tabula serve --skip-quick-check` skips
/// it, for a file too large to read at every start.
enum SQLiteQuickCheck {
    static let advice = "Restore it from a backup (or start with --skip-quick-check to serve what can still be read)"

    static func run(_ database: SQLiteDatabase, path: String, logger: Logger) throws(StoreError) {
        let started = SystemClock.monotonicNanoseconds()
        let lines: [String]
        do {
            lines = try database.prepare("PRAGMA quick_check").rows().map { $0.first?.text ?? "(no message)" }
        } catch  where error.isCorruption {
            throw .corrupt("\(path) is damaged; SQLite's quick_check stopped: \(error.message). \(advice)")
        } catch {
            throw StoreError("SQLite cannot check \(path)", error)
        }
        guard lines == ["ok"] else {
            throw .corrupt("\(path) is damaged; SQLite's quick_check says: \(lines.joined(separator: "; ")). \(advice)")
        }
        let milliseconds = (SystemClock.monotonicNanoseconds() - started) / 1_000_000
        logger.info("SQLite's quick_check found \(path) sound in \(milliseconds) ms")
    }
}
