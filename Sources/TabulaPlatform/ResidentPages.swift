/// Hands clean pages of mapped files back to the page cache: code and constant data that a
/// process ran or read while it started, and that stays mapped, counted as its resident
/// memory, until the kernel needs the memory. Pages used later come back on first use, from
/// the page cache (a minor fault). Only mappings that are not writable and hold no page of
/// their own (no relocated data, in memory or swapped out) are given back, so nothing is
/// lost. `Scripts/bench`'s idle RSS is the figure this serves.
public enum ResidentPages {
    /// Gives back the pages of every such mapping of a file whose path `isReleasable` accepts.
    public static func release(mappingsOf isReleasable: (Substring) -> Bool) {
        guard let smaps = try? Files.read("/proc/self/smaps") else { return }
        var mapping: (start: UInt, end: UInt, releasable: Bool)?
        func release() {
            guard let mapping, mapping.releasable, mapping.end > mapping.start else { return }
            _ = madvise(UnsafeMutableRawPointer(bitPattern: mapping.start), Int(mapping.end - mapping.start), MADV_DONTNEED)
        }
        for line in smaps.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 2, fields[1].count == 4 {
                release()
                let bounds = range.split(separator: "-")
                guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16) else {
                    mapping = nil
                    continue
                }
                let wanted = fields.count >= 6 && isReleasable(fields[5])
                mapping = (start, end, wanted && !fields[1].contains("w"))
            } else if fields.count >= 2, ["Private_Dirty:", "Anonymous:", "Swap:"].contains(fields[0]), fields[1] != "0" {
                mapping?.releasable = false
            }
        }
        release()
    }

    /// The running executable's path, as the mappings name it.
    public static var executablePath: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
