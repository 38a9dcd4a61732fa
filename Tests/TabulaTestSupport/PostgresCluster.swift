import Foundation

/// A throw-away PostgreSQL cluster (initdb + pg_ctl from Debian's `postgresql`) on a free
/// loopback port, in a temporary directory; stopped and removed when released. As root it
/// runs the server as the `postgres` user, since initdb refuses root.
public final class PostgresCluster: @unchecked Sendable {
    public let port: UInt16
    public let directory: URL
    public let database = "tabula"
    private let binaries: URL

    public var url: String { "postgresql://tabula@127.0.0.1:\(port)/\(database)" }

    public init() throws {
        binaries = try Self.findBinaries()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tabula-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try ServerProcess.freePort()
        if getuid() == 0 { try Self.run(["/bin/chown", "-R", "postgres:postgres", directory.path]) }
        try runAsServerUser(["initdb", "-D", dataPath, "-U", "tabula", "--auth=trust", "-E", "UTF8", "--no-sync"])
        try start()
        try runAsServerUser(["createdb", "-h", "127.0.0.1", "-p", String(port), "-U", "tabula", database])
        // A shared cluster is never released: stop and remove it when this process exits.
        let stop = (getuid() == 0 ? "/usr/sbin/runuser -u postgres -- " : "") + binaries.appendingPathComponent("pg_ctl").path
        try Subprocess.launch([
            "/bin/sh", "-c",
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) -D '\(dataPath)' stop -m immediate -w; rm -rf '\(directory.path)'",
        ])
    }

    deinit {
        _ = try? runAsServerUser(["pg_ctl", "-D", dataPath, "stop", "-m", "immediate", "-w"])
        try? FileManager.default.removeItem(at: directory)
    }

    private var dataPath: String { directory.appendingPathComponent("data").path }

    /// Starts (or restarts) the server and waits until it accepts connections.
    public func start() throws {
        let options = "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100"
        try runAsServerUser(["pg_ctl", "-D", dataPath, "-l", directory.appendingPathComponent("server.log").path, "-o", options, "-w", "start"])
    }

    /// Stops the server at once (as if it went away).
    public func stop() throws {
        try runAsServerUser(["pg_ctl", "-D", dataPath, "stop", "-m", "immediate", "-w"])
    }

    /// One cluster for the whole test process, started on first use.
    public static let shared: Result<PostgresCluster, any Error> = Result { try PostgresCluster() }

    /// Creates an empty database and returns its URL.
    public func makeDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        _ = try query("CREATE DATABASE \(name)")
        return "postgresql://tabula@127.0.0.1:\(port)/\(name)"
    }

    /// Runs SQL through psql and returns its output (tuples only, unaligned).
    public func query(_ sql: String, database: String? = nil) throws -> String {
        try runAsServerUser(["psql", "-h", "127.0.0.1", "-p", String(port), "-U", "tabula", "-d", database ?? self.database, "-tAq", "-c", sql])
    }

    @discardableResult
    private func runAsServerUser(_ arguments: [String]) throws -> String {
        let tool = binaries.appendingPathComponent(arguments[0]).path
        let command = [tool] + arguments.dropFirst()
        return try Self.run(getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command)
    }

    /// Runs a command and returns its output; throws with the output when it fails.
    @discardableResult
    static func run(_ command: [String]) throws -> String {
        let (status, output) = try Subprocess.run(command)
        guard status == 0 else {
            throw ServerProcessError("\(command.joined(separator: " ")) failed (\(status)): \(output)")
        }
        return output
    }

    static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path))?.sorted { $0.localizedStandardCompare($1) == .orderedDescending } ?? []
        for version in versions {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.fileExists(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw ServerProcessError("PostgreSQL server binaries not found under /usr/lib/postgresql; apt-get install postgresql")
    }
}
