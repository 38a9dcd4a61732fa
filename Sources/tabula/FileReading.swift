#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file; throws a ``CommandFailure`` naming the file and the system's reason.
func readFile(_ path: String) throws -> [UInt8] {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else {
        throw CommandFailure("\(path): cannot read: \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw CommandFailure("\(path): cannot read: \(String(cString: strerror(errno)))")
        }
        if count == 0 { return bytes }
        bytes.append(contentsOf: chunk[0..<count])
    }
}
