import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command with posix_spawn and waitpid, its output captured in a file. Used for
/// commands that leave daemons behind (`pg_ctl start`): Foundation's Process can wait
/// forever for such a child on Linux.
///
/// The child gets only standard input, output and error. posix_spawn alone would hand it
/// every descriptor the test process has open without close-on-exec, such as the other
/// tests' client sockets; the PostgreSQL server and the watcher shell live for the whole
/// run and would keep them open, so a test's `close` would never reach the server it
/// talks to (the connection-limit test waited in vain for a freed place that way).
public enum Subprocess {
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
    /// Glibc module does not declare: spawn.h offers it only under _GNU_SOURCE.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// Spawns `command` with the standard streams that `redirect` sets up and no other
    /// descriptor; returns posix_spawn's result and the child's pid.
    private static func spawn(
        _ command: [String], redirect: (inout posix_spawn_file_actions_t) -> Void
    ) throws -> (result: Int32, pid: pid_t) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        redirect(&actions)
        guard let addCloseFrom, addCloseFrom(&actions, 3) == 0 else {
            throw ServerProcessError("posix_spawn cannot close inherited descriptors here (glibc 2.34 or later is needed)")
        }
        var arguments = command.map { strdup($0) }
        arguments.append(nil)
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, command[0], &actions, nil, arguments, environ)
        return (result, pid)
    }

    /// Starts a command in the background and does not wait for it.
    public static func launch(_ command: [String]) throws {
        _ = try spawn(command) { actions in
            for descriptor in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0) }
        }
    }

    public static func run(_ command: [String]) throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("tabula-cmd-\(UUID().uuidString).log").path
        defer { unlink(outputPath) }
        let (spawned, pid) = try spawn(command) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        guard spawned == 0 else { throw ServerProcessError("cannot run \(command[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), output)
    }
}
