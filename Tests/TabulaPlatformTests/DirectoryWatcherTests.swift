import Foundation
import TabulaPlatform
import Testing

@Suite struct DirectoryWatcherTests {
    /// Counts callbacks.
    final class Calls: Sendable {
        let count = Locked(0)

        func waitFor(_ wanted: Int, within seconds: Double = 10) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if count.withLock({ $0 }) >= wanted { return true }
                usleep(10_000)
            }
            return false
        }
    }

    /// A write, a new file and a removal each call back once the directory is quiet, by
    /// inotify and by comparing stamps; a burst of writes is one call.
    @Test(arguments: [false, true])
    func changesAddsAndRemovalsCallBack(polling: Bool) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.json")
        try Data("1".utf8).write(to: file)
        let calls = Calls()
        let watcher = DirectoryWatcher(directory: directory.path, polling: polling) { calls.count.withLock { $0 += 1 } }
        defer { watcher.stop() }
        #expect(watcher.method == (polling ? "polling" : "inotify"))
        usleep(300_000)  // a call that must not come has no moment to wait for
        #expect(calls.count.withLock { $0 } == 0)
        for value in 0..<5 { try Data("burst \(value)".utf8).write(to: file) }
        #expect(calls.waitFor(1), "a write")
        usleep(600_000)  // nor a second call for the same burst
        #expect(calls.count.withLock { $0 } == 1, "a burst of writes is one call")
        try Data("new".utf8).write(to: directory.appendingPathComponent("b.json"))
        #expect(calls.waitFor(2), "a new file")
        try FileManager.default.removeItem(at: file)
        #expect(calls.waitFor(3), "a removal")
    }
}
