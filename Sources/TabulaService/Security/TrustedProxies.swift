import TabulaHTTP
import TabulaPlatform

/// The proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`): addresses or
/// CIDR ranges, IPv4 or IPv6. A request from anywhere else is its peer's own; one from a
/// trusted proxy is the client's that the header names last, after skipping the trusted
/// proxies that appended themselves (so a client cannot pass itself off as another by
/// sending the header: what it sends comes before what the proxies append).
public struct TrustedProxies: Sendable {
    /// A network: its address bytes and prefix length.
    struct Network: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int

        /// Whether the network holds `address` (as ``addressBytes(_:)`` reads one: an IPv4
        /// address written as IPv6 is its 4 bytes). An IPv6 network holds an IPv4 address
        /// when it holds its IPv6 form, `::ffff:a.b.c.d` (`::/0`, `::ffff:0:0/96`).
        func contains(_ address: [UInt8]) -> Bool {
            if bytes.count == 16, address.count == 4 { return contains(Array(repeating: 0, count: 10) + [0xFF, 0xFF] + address) }
            guard address.count == bytes.count else { return false }
            var remaining = prefix
            for index in bytes.indices where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if address[index] & mask != bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let networks: [Network]

    /// No proxy is trusted: every request is its peer's.
    public static let none = TrustedProxies(networks: [])

    init(networks: [Network]) {
        self.networks = networks
    }

    /// Reads entries such as `127.0.0.1`, `10.0.0.0/8` or `fd00::/8`.
    public init(_ entries: [String]) throws(ConfigurationError) {
        var networks: [Network] = []
        for entry in entries.map({ $0.trimmingSpaces() }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            // As written: an IPv6 network keeps its 16 bytes, `::ffff:10.0.0.0/104` included.
            guard let bytes = Self.addressBytes(parts[0], mappedAsIPv4: false) else {
                throw ConfigurationError("trusted proxy \"\(entry)\" is not an IPv4 or IPv6 address, nor a CIDR range such as 10.0.0.0/8")
            }
            let maximum = bytes.count * 8
            var prefix = maximum
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...maximum).contains(length) else {
                    throw ConfigurationError("trusted proxy \"\(entry)\": the prefix length must be 0 to \(maximum)")
                }
                prefix = length
            }
            networks.append(Network(bytes: bytes, prefix: prefix))
        }
        self.networks = networks
    }

    func trusts(_ address: String) -> Bool {
        guard !networks.isEmpty, let bytes = Self.addressBytes(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client's address for a request: its peer's, unless the peer is trusted and the
    /// request carries `X-Forwarded-For`.
    func clientAddress(of request: Request) -> String {
        guard trusts(request.remoteAddress) else { return request.remoteAddress }
        var forwarded: [String] = []
        for value in request.headers.values("X-Forwarded-For") {
            forwarded += value.split(separator: ",").map { String($0).trimmingSpaces() }
        }
        // The last address a trusted proxy did not append is the client's.
        for entry in forwarded.reversed() {
            let address = Self.withoutPort(entry)
            guard !trusts(address) else { continue }
            return Self.addressBytes(address) == nil ? request.remoteAddress : address
        }
        return forwarded.first.map(Self.withoutPort) ?? request.remoteAddress
    }

    /// An address as some proxies write it, with a port (`1.2.3.4:5678`,
    /// `[2001:db8::1]:443`) or in brackets, without them.
    static func withoutPort(_ entry: String) -> String {
        if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
            return String(entry[entry.index(after: entry.startIndex)..<close])
        }
        // One colon: IPv4 and a port (an IPv6 address has two or more).
        if let colon = entry.firstIndex(of: ":"), entry[entry.index(after: colon)...].firstIndex(of: ":") == nil {
            return String(entry[..<colon])
        }
        return entry
    }

    /// The bytes of an IPv4 (4) or IPv6 (16) literal; `nil` for anything else. An IPv4
    /// address written as IPv6 (`::ffff:10.1.2.3`) is its 4 bytes: the same client, in the
    /// same networks, whichever way a proxy or a dual-stack socket writes it.
    static func addressBytes(_ text: String, mappedAsIPv4: Bool = true) -> [UInt8]? {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 {
            return withUnsafeBytes(of: &ipv4) { Array($0) }
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, text, &ipv6) == 1 {
            let bytes = withUnsafeBytes(of: &ipv6) { Array($0) }
            if mappedAsIPv4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
            return bytes
        }
        return nil
    }
}
