import Foundation

/// nginx (Debian's `nginx-light`) on loopback, stopped when released: by default running the
/// repository's `deploy/nginx.conf` in front of Tabula instances, the file's upstream
/// `server` line becoming one line per instance and its `listen` port a free one; everything
/// else is used as written, so the tests check the configuration users deploy.
public final class NginxProcess: @unchecked Sendable {
    public let port: UInt16
    public let directory: URL
    private let process = Process()

    public convenience init(upstreamPorts: [UInt16]) throws {
        let deployed = try String(contentsOf: repositoryRoot.appendingPathComponent("deploy/nginx.conf"), encoding: .utf8)
        try self.init { port in try Self.site(deployed, upstreamPorts: upstreamPorts, port: port) }
    }

    /// A `server` block of nginx's `http` context to serve: TLS in front of a test's own
    /// backend, say. `site` gets the free port to listen on.
    public init(site makeSite: (_ port: UInt16) throws -> String) throws {
        let binary = URL(fileURLWithPath: "/usr/sbin/nginx")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ServerProcessError("nginx is missing: apt-get install -y nginx-light (Scripts/test installs it)")
        }
        directory = try makeTemporaryDirectory()
        port = try ServerProcess.freePort()
        let site = try makeSite(port)
        try site.write(to: directory.appendingPathComponent("site.conf"), atomically: true, encoding: .utf8)
        // The main context Debian's /etc/nginx/nginx.conf would give, in the test's folder.
        let main = """
            \(getuid() == 0 ? "user root;" : "")
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                include \(directory.path)/site.conf;
            }
            """
        try main.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process.executableURL = binary
        process.arguments = ["-c", directory.appendingPathComponent("nginx.conf").path, "-p", directory.path, "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? RawHTTPConnection(port: port, timeout: 1)) != nil { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        process.terminate()
        throw ServerProcessError("nginx did not start:\n\(log)")
    }

    deinit {
        // Not Process.waitUntilExit: it waits for ever for this process (seen with nginx, whose
        // master process Foundation does not reap when it is killed).
        let pid = process.processIdentifier
        kill(pid, SIGQUIT)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, waitpid(pid, nil, WNOHANG) == 0 { usleep(10_000) }
        kill(pid, SIGKILL)
        _ = waitpid(pid, nil, WNOHANG)
        try? FileManager.default.removeItem(at: directory)
    }

    /// `deploy/nginx.conf` with its upstream servers and listening port replaced.
    static func site(_ deployed: String, upstreamPorts: [UInt16], port: UInt16) throws -> String {
        var lines: [String] = []
        var replacedServer = false
        var replacedListen = false
        for line in deployed.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("server tabula:") {
                // Keep the line's parameters (max_fails, ...) for each instance.
                let parameters = trimmed.split(separator: " ").dropFirst(2).joined(separator: " ")
                for upstream in upstreamPorts { lines.append("    server 127.0.0.1:\(upstream) \(parameters)") }
                replacedServer = true
            } else if trimmed.hasPrefix("listen ") {
                lines.append("    listen 127.0.0.1:\(port);")
                replacedListen = true
            } else {
                lines.append(String(line))
            }
        }
        guard replacedServer, replacedListen else {
            throw ServerProcessError("deploy/nginx.conf has no `server tabula:…` or no `listen` line to replace")
        }
        return lines.joined(separator: "\n")
    }
}
