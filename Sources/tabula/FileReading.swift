import TabulaCore
import TabulaPlatform
import TabulaService

/// Reads a whole file; throws a ``CommandFailure`` naming the file and the system's reason.
func readFile(_ path: String) throws -> [UInt8] {
    do {
        return try Files.read(path)
    } catch {
        throw CommandFailure(error.description)
    }
}
