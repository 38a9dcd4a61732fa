/// A file or directory that could not be read, and the system's reason.
public struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }

    fileprivate static func current(_ path: String, _ action: String) -> FileError {
        FileError(path: path, reason: "cannot \(action): \(String(cString: strerror(errno)))")
    }
}

/// Whole-file reads and directory listings, for the files a service is configured with.
public enum Files {
    /// The most a configured file may hold: far above any definition, table, screen or CA
    /// file, and a bound on what a path that names `/dev/zero` or a growing log can take.
    public static let readLimit = 64 << 20

    /// A whole file's bytes, at most `limit` of them.
    public static func read(_ path: String, limit: Int = readLimit) throws(FileError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .current(path, "read") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { readDescriptor(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .current(path, "read")
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else {
                throw FileError(path: path, reason: "holds more than \(limit >> 20) MiB, more than any file Tabula reads")
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes a whole file, replacing what it held.
    public static func write(_ bytes: [UInt8], to path: String) throws(FileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .current(path, "write") }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { writeDescriptor(descriptor, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .current(path, "write")
            }
            written += count
        }
    }

    /// The names of the files directly inside `directory` that end in `suffix` and do not
    /// start with a dot (editors' hidden and swap files), sorted.
    public static func names(in directory: String, endingIn suffix: String) throws(FileError) -> [String] {
        guard let handle = opendir(directory) else { throw .current(directory, "list") }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
            }
            if name.hasSuffix(suffix) && !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    /// Creates `directory` and the directories above it that are missing (mode 0750).
    /// Throws with the system's reason for the first one it cannot create, or when one of
    /// them exists but is not a directory.
    public static func createDirectories(_ directory: String) throws(FileError) {
        var path = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            path += "/" + component
            guard mkdir(path, 0o750) != 0 else { continue }
            guard errno == EEXIST else { throw FileError(path: path, reason: "cannot create it: \(String(cString: strerror(errno)))") }
            var status = stat()
            guard stat(path, &status) == 0 else { throw .current(path, "examine") }
            guard status.st_mode & S_IFMT == S_IFDIR else { throw FileError(path: path, reason: "it exists and is not a directory") }
        }
    }

    /// What identifies a version of a file without reading it: its modification time in
    /// nanoseconds, size and inode; `nil` when it cannot be examined.
    public static func stamp(_ path: String) -> [Int]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [modificationNanoseconds(status), Int(status.st_size), Int(status.st_ino)]
    }
}
