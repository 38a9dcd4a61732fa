import Foundation
import TabulaTestSupport
import Testing

@testable import TabulaService

@Suite struct BufferedStandardOutputTests {
    /// Many threads, buffers written out every few lines by their own thread and by the
    /// background writer at once: every line comes out exactly once, whole, timestamped, and
    /// each thread's lines in the order it wrote them.
    @Test func everyLineComesOutOnceAndEachThreadsInOrder() throws {
        let writers = 6
        let linesPerWriter = 1_000
        let text = try writtenOut(interval: 0.002, thresholdBytes: 300) { output in
            DispatchQueue.concurrentPerform(iterations: writers) { writer in
                for line in 0..<linesPerWriter {
                    // Now and then an urgent line, which writes every thread's lines at once.
                    output.writeLine(urgent: line % 331 == 0) { $0.append(contentsOf: "w\(writer) \(line)".utf8) }
                }
            }
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "")
        var next = [Int](repeating: 0, count: writers)
        var misplaced: [String] = []
        for line in lines.dropLast() {
            // `2026-11-22T06:27:24+0000 w3 17`
            let fields = line.split(separator: " ")
            if fields.count == 3, fields[0].count == 24, fields[0].hasSuffix("+0000"), fields[1].hasPrefix("w"),
                let writer = Int(fields[1].dropFirst()), let number = Int(fields[2]), next.indices.contains(writer),
                number == next[writer]
            {
                next[writer] = number + 1
            } else {
                misplaced.append(String(line))
            }
        }
        #expect(misplaced.count == 0, "\(misplaced.count) lines malformed, repeated or out of order, first: \(misplaced.prefix(3))")
        #expect(next == [Int](repeating: linesPerWriter, count: writers))
    }
}

/// What `write` writes through a ``BufferedStandardOutput`` to a file, once it is closed.
func writtenOut(interval: Double = 0.1, thresholdBytes: Int = 16 * 1024, _ write: (BufferedStandardOutput) -> Void) throws -> String {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("output").path
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    let output = BufferedStandardOutput(fileDescriptor: descriptor, interval: interval, thresholdBytes: thresholdBytes)
    write(output)
    output.close()
    return try String(contentsOfFile: path, encoding: .utf8)
}
