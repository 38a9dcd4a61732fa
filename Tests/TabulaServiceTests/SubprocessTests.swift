import TabulaTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The test run's own child processes (PostgreSQL, its watcher shell) outlive many tests;
/// a descriptor they inherited would keep another test's connection open after it closed.
@Suite struct SubprocessTests {
    @Test func aCommandInheritsNoDescriptorOfTheTestProcess() throws {
        // Opened without close-on-exec, like any socket a library or a test might make.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(descriptor > 2)
        defer { close(descriptor) }
        let (status, output) = try Subprocess.run(["/bin/ls", "-l", "/proc/self/fd"])
        #expect(status == 0, "ls failed: \(output)")
        // ls holds only its standard streams and the directory it reads: no socket.
        #expect(!output.contains("socket:"), "the command inherited a socket:\n\(output)")
        #expect(output.contains("/proc/"), "ls did not list its own descriptors:\n\(output)")
    }
}
