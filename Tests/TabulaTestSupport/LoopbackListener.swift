import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A listening TCP socket on 127.0.0.1, on a free port: what the test servers accept on.
public enum LoopbackListener {
    /// The socket and its port.
    public static func open(backlog: Int32) throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw RawHTTPError("socket() failed") }
        var address = address(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0, listen(descriptor, backlog) == 0 else {
            Glibc.close(descriptor)
            throw RawHTTPError("cannot listen on 127.0.0.1")
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// 127.0.0.1:`port`.
    static func address(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
