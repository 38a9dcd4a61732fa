import TabulaCore
import TabulaPlatform

/// Reads a whole file; throws a ``CommandFailure`` naming the file and the system's reason.
func readFile(_ path: String) throws -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
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

/// The names of the `.json` files directly inside a directory, sorted.
func jsonFileNames(in directory: String) throws -> [String] {
    guard let handle = opendir(directory) else {
        throw CommandFailure("\(directory): cannot list: \(String(cString: strerror(errno)))")
    }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
            String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
        }
        if name.hasSuffix(".json") && !name.hasPrefix(".") { names.append(name) }
    }
    return names.sorted()
}

/// Reads every definition file of a directory.
func readDefinitionFiles(in directory: String) throws -> [DefinitionFile] {
    let names = try jsonFileNames(in: directory)
    guard !names.isEmpty else {
        throw CommandFailure("\(directory): no screen definitions (*.json files) found")
    }
    return try names.map { name in DefinitionFile(name: name, bytes: try readFile("\(directory)/\(name)")) }
}
