import Foundation

/// A certificate authority of a test's own and a certificate it signed for `127.0.0.1`, made
/// with the `openssl` command (Debian's `openssl`): what a private CA gives a server on an
/// internal network. The files are removed when released.
public final class TestCertificates: @unchecked Sendable {
    public let directory: URL
    /// The authority's certificate (PEM): what a client that trusts it is given.
    public var authority: String { directory.appendingPathComponent("ca.pem").path }
    /// The server's certificate (PEM) and its key, for `127.0.0.1`.
    public var certificate: String { directory.appendingPathComponent("server.pem").path }
    public var key: String { directory.appendingPathComponent("server.key").path }

    public init() throws {
        directory = try makeTemporaryDirectory()
        let extensions = directory.appendingPathComponent("server.ext")
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".write(
            to: extensions, atomically: true, encoding: .utf8)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(
            ["req", "-x509"] + curve + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Tabula test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try openssl(["req"] + curve + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"])
        try openssl([
            "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
            "-days", "2", "-extfile", extensions.path,
        ])
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    private func openssl(_ arguments: [String]) throws {
        let binary = URL(fileURLWithPath: "/usr/bin/openssl")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ServerProcessError("openssl is missing: apt-get install -y openssl (Scripts/test installs it)")
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ServerProcessError("openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))")
        }
    }
}
