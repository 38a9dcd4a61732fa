import Glibc
import TabulaPlatform

extension ICULocaleRules {
    /// Hands ICU's code and constant data back to the page cache once the catalogue's rules
    /// are built. Loading ICU, building plural rules and number formatters runs code and
    /// reads data that rendering never touches again; those clean pages of ICU's files stay
    /// mapped, and counted as the process's resident memory, until the kernel needs them.
    /// Pages a render uses come back on first use, from the page cache (a minor fault).
    /// Only mappings of ICU's files that are not writable and hold no page of their own
    /// (no relocated data, in memory or swapped out) are given back, so nothing is lost.
    /// Call it while no other thread can be loading ICU (before serving). `Scripts/bench`'s
    /// idle RSS is the figure this serves.
    public static func releaseLoadingPages() {
        // Reads the mappings rather than ICU.shared, which would load ICU where nothing has.
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
                let isICU = fields.count >= 6 && fields[5].contains("/libicu")
                mapping = (start, end, isICU && !fields[1].contains("w"))
            } else if fields.count >= 2, ["Private_Dirty:", "Anonymous:", "Swap:"].contains(fields[0]), fields[1] != "0" {
                mapping?.releasable = false
            }
        }
        release()
    }
}
