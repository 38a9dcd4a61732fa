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

    /// A file written over and over never leaves the directory quiet: the callback still
    /// comes, within the longest wait, while the writes go on. It used to wait for them to end.
    @Test(arguments: [false, true])
    func aDirectoryNeverQuietStillCallsBack(polling: Bool) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.json")
        let calls = Calls()
        let watcher = DirectoryWatcher(directory: directory.path, polling: polling) { calls.count.withLock { $0 += 1 } }
        defer { watcher.stop() }
        let writing = Locked(true)
        let writer = Thread {
            var value = 0
            while writing.withLock({ $0 }) {
                value += 1
                try? Data("write \(value)".utf8).write(to: file)
                usleep(20_000)
            }
        }
        writer.start()
        #expect(calls.waitFor(2, within: 8), "two calls while the writes go on")
        writing.withLock { $0 = false }
    }

    /// A directory deleted and made again, or swapped for another by a rename, took inotify's
    /// watch with it: nothing after was seen. The path is now watched again once it is there.
    @Test(arguments: ["deleted", "swapped"])
    func aDirectoryReplacedIsWatchedAgain(how: String) throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        let directory = parent.appendingPathComponent("screens")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        try Data("1".utf8).write(to: directory.appendingPathComponent("a.json"))
        let calls = Calls()
        let watcher = DirectoryWatcher(directory: directory.path) { calls.count.withLock { $0 += 1 } }
        defer { watcher.stop() }
        #expect(watcher.method == "inotify")
        if how == "deleted" {
            try FileManager.default.removeItem(at: directory)
            #expect(calls.waitFor(1), "the removal")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } else {
            let next = parent.appendingPathComponent("screens.next")
            try FileManager.default.createDirectory(at: next, withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: directory, to: parent.appendingPathComponent("screens.old"))
            try FileManager.default.moveItem(at: next, to: directory)
        }
        // A swap may come as one change with its removal; a deletion has called back already.
        #expect(calls.waitFor(how == "deleted" ? 2 : 1), "the directory in its place")
        let before = calls.count.withLock { $0 }
        try Data("2".utf8).write(to: directory.appendingPathComponent("b.json"))
        #expect(calls.waitFor(before + 1), "a file written in the new directory")
    }
}
