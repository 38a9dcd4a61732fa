import TabulaCore
import TabulaICU
import TabulaPlatform

/// Reads a directory of definitions, or one file, with plain system calls (no Foundation).
public enum FixtureFiles {
    /// The catalogue of a screens directory, with the string tables beside it (if any),
    /// without the files named in `excluding`.
    public static func catalogue(directory: String, excluding: Set<String> = []) throws -> Catalogue {
        guard let files = definitionFiles(directory: directory) else { throw DefinitionErrors([]) }
        return try Catalogue.load(files.filter { !excluding.contains($0.name) }, strings: strings(besideScreens: directory))
    }

    /// The string tables beside a screens directory, in the default locale; `nil` when there
    /// is no strings directory.
    public static func strings(besideScreens directory: String) -> StringSources? {
        definitionFiles(directory: StringSources.directory(besideScreens: directory)).map {
            StringSources(files: $0, defaultLocale: StringSources.defaultLocale, rules: ICULocaleRules())
        }
    }

    /// Every `*.json` file of `directory`; `nil` when it cannot be opened.
    public static func definitionFiles(directory: String) -> [DefinitionFile]? {
        guard let names = entries(directory: directory) else { return nil }
        return names.filter { $0.hasSuffix(".json") }.compactMap { name in
            read("\(directory)/\(name)").map { DefinitionFile(name: name, bytes: $0) }
        }
    }

    /// The names in `directory` but `.` and `..`, sorted; `nil` when it cannot be opened.
    public static func entries(directory: String) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The whole file at `path`; `nil` when it cannot be read.
    public static func read(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return count == 0 ? bytes : nil }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}
