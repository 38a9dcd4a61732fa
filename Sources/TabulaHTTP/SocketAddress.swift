import TabulaPlatform

/// IPv4 and IPv6 socket addresses for binding and for naming clients.
enum SocketAddress {
    /// A socket address storage for a numeric host and port; `nil` if the host is not an
    /// IPv4 or IPv6 literal.
    static func make(host: String, port: UInt16) -> (storage: sockaddr_storage, isIPv6: Bool)? {
        var storage = sockaddr_storage()
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    address.pointee.sin_family = sa_family_t(AF_INET)
                    address.pointee.sin_port = port.bigEndian
                    address.pointee.sin_addr = ipv4
                }
            }
            return (storage, false)
        }
        var ipv6 = in6_addr()
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if inet_pton(AF_INET6, literal, &ipv6) == 1 {
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    address.pointee.sin6_family = sa_family_t(AF_INET6)
                    address.pointee.sin6_port = port.bigEndian
                    address.pointee.sin6_addr = ipv6
                }
            }
            return (storage, true)
        }
        return nil
    }

    /// "127.0.0.1" or "::1" for a client's address; "" when unknown.
    static func describe(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ipv4 = UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr_in.self).pointee.sin_addr
            guard inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count)) != nil else { return "" }
        case AF_INET6:
            var ipv6 = UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_addr
            guard inet_ntop(AF_INET6, &ipv6, &text, socklen_t(text.count)) != nil else { return "" }
        default:
            return ""
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
