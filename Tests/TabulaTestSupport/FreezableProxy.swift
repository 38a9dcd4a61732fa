import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on loopback to a local port that can stop passing bytes on while keeping
/// its connections open: a server that stops answering while its host still acknowledges
/// the traffic (a frozen process, a stalled disk), which keepalives cannot tell from a
/// slow one. It can also cut every connection it holds: a network that dropped them.
public final class FreezableProxy: @unchecked Sendable {
    public let port: UInt16
    private let listener: Int32
    private let target: UInt16
    private let frozen = NSLock()
    private var isFrozen = false
    private var connections: Set<Int32> = []

    public init(to target: UInt16) throws {
        self.target = target
        (listener, port) = try LoopbackListener.open(backlog: 16)
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// Stops accepting (the accept thread holds the proxy, so this is not left to deinit);
    /// open connections end when either side closes.
    public func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
    }

    /// While frozen, bytes are read from both sides and held; thawed, they pass on.
    public func freeze(_ frozen: Bool) {
        self.frozen.withLock { isFrozen = frozen }
    }

    /// Cuts every open connection, both ways, as a dropped network does; new connections
    /// pass as before.
    public func cutConnections() {
        frozen.withLock {
            for descriptor in connections { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private var passes: Bool { frozen.withLock { !isFrozen } }

    private func acceptConnections() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = LoopbackListener.address(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard upstream >= 0, connected == 0 else {
                Glibc.close(client)
                if upstream >= 0 { Glibc.close(upstream) }
                continue
            }
            frozen.withLock {
                _ = connections.insert(client); _ = connections.insert(upstream)
            }
            Thread.detachNewThread { [self] in
                let replies = DispatchGroup()
                replies.enter()
                Thread.detachNewThread { [self] in
                    pump(from: upstream, to: client)
                    replies.leave()
                }
                pump(from: client, to: upstream)
                replies.wait()
                frozen.withLock {
                    _ = connections.remove(client); _ = connections.remove(upstream)
                }
                Glibc.close(client)
                Glibc.close(upstream)
            }
        }
    }

    /// Copies bytes until either side closes, holding them while frozen; then shuts both
    /// down, so that the other direction ends too.
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            while !passes { usleep(10_000) }
            let sent = buffer.withUnsafeBytes { send(destination, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
            guard sent == count else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }
}
