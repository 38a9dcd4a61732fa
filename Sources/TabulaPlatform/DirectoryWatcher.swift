internal import CTabulaPlatform

/// Calls back when files directly inside a directory are written, added, renamed or
/// removed: at once through inotify on Linux, else by comparing every file's stamp
/// (``Files/stamp(_:)``) every quarter of a second. A burst of changes (an editor's save
/// writes a temporary file, renames it and touches the directory) becomes one call, made a
/// short quiet time after the last change, so the callback sees the files complete. A
/// directory that is never quiet (a file written over and over) still calls back, once
/// ``longestWait`` after the change that began the burst, and again after each such wait.
public final class DirectoryWatcher: Sendable {
    /// How long the directory must be quiet before the callback, in milliseconds.
    public static let quietMilliseconds: Int32 = 100
    /// The longest a burst of changes postpones the callback.
    public static let longestWait = Duration.seconds(1)
    private static let pollMilliseconds: Int32 = 250

    private let stopping = Locked(false)
    private let thread = Locked<WorkerThread?>(nil)
    /// How the watcher learns of changes, for the startup log.
    public let method: String
    /// The directory watched.
    public let directory: String

    /// Starts watching `directory`; `onChange` runs on the watcher's own thread. `polling`
    /// compares stamps even where inotify is available (for tests of that method).
    public init(directory: String, polling: Bool = false, onChange: @escaping @Sendable () -> Void) {
        self.directory = directory
        #if os(Linux)
            let descriptor = polling ? -1 : inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            if descriptor >= 0, case let watch = inotify_add_watch(descriptor, directory, Self.mask), watch >= 0 {
                method = "inotify"
                thread.withLock { [self] in $0 = WorkerThread.start { self.notify(descriptor, watch, onChange) } }
                return
            }
            if descriptor >= 0 { close(descriptor) }
        #endif
        method = "polling"
        thread.withLock { [self] in $0 = WorkerThread.start { self.compareStamps(directory, onChange) } }
    }

    /// Stops watching and waits for the watcher's thread (and a callback in progress).
    public func stop() {
        stopping.withLock { $0 = true }
        thread.withLock { $0.take() }?.join()
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    #if os(Linux)
        private static let mask = UInt32(
            IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)

        private func notify(_ descriptor: Int32, _ firstWatch: Int32, _ onChange: @Sendable () -> Void) {
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 16_384)
            var changed = false
            var burstStarted = ContinuousClock.now
            var watch: Int32? = firstWatch
            while !isStopping {
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                // Short timeouts: stop() is noticed within one.
                let ready = poll(&entry, 1, changed ? Self.quietMilliseconds : Self.pollMilliseconds)
                if ready > 0 {
                    // Any change reads the directory again; only the directory's own end matters.
                    while case let count = buffer.withUnsafeMutableBytes({ readDescriptor(descriptor, $0.baseAddress, $0.count) }), count > 0 {
                        if let ended = watch, Self.watchEnded(ended, in: buffer[0..<count]) {
                            inotify_rm_watch(descriptor, ended)
                            watch = nil
                        }
                    }
                    if !changed { burstStarted = .now }
                    changed = true
                }
                // The directory was deleted, or moved away (an editor's or a deployment's
                // swap): the kernel's watch went with it, so the path is watched again once
                // something is there, and read again then.
                if watch == nil, case let renewed = inotify_add_watch(descriptor, directory, Self.mask), renewed >= 0 {
                    watch = renewed
                    if !changed { burstStarted = .now }
                    changed = true
                } else if changed, ready == 0 || ContinuousClock.now - burstStarted >= Self.longestWait {
                    changed = false
                    onChange()
                }
            }
        }

        /// Whether inotify's events say the directory `watch` watches is gone: deleted, moved,
        /// or its watch dropped (`IN_IGNORED`, after either, or an unmount). An ended watch's
        /// late `IN_IGNORED` names its own descriptor, not the one watching the path since.
        private static func watchEnded(_ watch: Int32, in events: ArraySlice<UInt8>) -> Bool {
            let ending = UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)
            return events.withUnsafeBytes { bytes in
                // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
                var offset = 0
                while offset + 16 <= bytes.count {
                    let descriptor = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    if descriptor == watch, mask & ending != 0 { return true }
                    offset += 16 + Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                return false
            }
        }
    #endif

    private func compareStamps(_ directory: String, _ onChange: @Sendable () -> Void) {
        var last = Self.stamps(directory)
        var changed = false
        var burstStarted = ContinuousClock.now
        while !isStopping {
            usleep(UInt32(changed ? Self.quietMilliseconds : Self.pollMilliseconds) * 1000)
            let now = Self.stamps(directory)
            let quiet = now == last
            if !quiet {
                last = now
                if !changed { burstStarted = .now }
                changed = true
            }
            if changed, quiet || ContinuousClock.now - burstStarted >= Self.longestWait {
                changed = false
                onChange()
            }
        }
    }

    private static func stamps(_ directory: String) -> [String: [Int]] {
        var stamps: [String: [Int]] = [:]
        for name in (try? Files.names(in: directory, endingIn: "")) ?? [] {
            stamps[name] = Files.stamp("\(directory)/\(name)")
        }
        return stamps
    }
}
