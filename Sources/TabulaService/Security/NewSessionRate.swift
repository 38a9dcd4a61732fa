import TabulaPlatform

/// New sessions per client address (`--max-new-sessions-per-minute`; an IPv6 client's /64):
/// a token bucket per address that holds a minute's worth and refills evenly, so that a client may create a
/// burst of sessions but not keep creating them faster than the rate. Buckets are kept for
/// the addresses seen lately, at most ``maxAddresses``: a full bucket says nothing and is
/// forgotten first.
final class NewSessionRate: Sendable {
    let perMinute: Int
    static let maxAddresses = 100_000
    private let buckets = Locked<[String: (tokens: Double, updated: Int64)]>([:])

    /// `perMinute` 0 turns the limit off.
    init(perMinute: Int) {
        self.perMinute = perMinute
    }

    /// The bucket an address counts against: an IPv4 address's own, and an IPv6 address's
    /// /64, the network one host is given (a host that takes a new address for each request
    /// stays within it); an IPv4 address written as IPv6 is the IPv4 address.
    static func bucket(of address: String) -> String {
        guard let bytes = TrustedProxies.addressBytes(address) else { return address }
        guard bytes.count == 16 else { return bytes.map(String.init).joined(separator: ".") }
        let network = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return network.joined(separator: ":") + "::/64"
    }

    /// Takes a session from `address`'s bucket at `now` (monotonic nanoseconds): `nil` when
    /// admitted, else the whole seconds until the next one is.
    func admit(_ address: String, now: Int64) -> Int? {
        guard perMinute > 0 else { return nil }
        let address = Self.bucket(of: address)
        let capacity = Double(perMinute)
        let perNanosecond = capacity / 60e9
        return buckets.withLock { buckets -> Int? in
            var bucket = buckets[address] ?? (capacity, now)
            bucket.tokens = min(capacity, bucket.tokens + Double(max(0, now - bucket.updated)) * perNanosecond)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[address] = bucket
                return max(1, Int(((1 - bucket.tokens) / perNanosecond / 1e9).rounded(.up)))
            }
            bucket.tokens -= 1
            if buckets[address] == nil, buckets.count >= Self.maxAddresses { forgetFullBuckets(&buckets, now: now, capacity: capacity) }
            buckets[address] = bucket
            return nil
        }
    }

    /// Drops the buckets that have refilled since (they would admit a minute's worth
    /// anyway); if that frees less than an eighth, every bucket (which admits more for a
    /// moment, not less). So a walk over the buckets comes at most once every eighth of
    /// them new, not once for each new address while few have refilled.
    private func forgetFullBuckets(_ buckets: inout [String: (tokens: Double, updated: Int64)], now: Int64, capacity: Double) {
        let perNanosecond = capacity / 60e9
        buckets = buckets.filter { $0.value.tokens + Double(now - $0.value.updated) * perNanosecond < capacity }
        if buckets.count > Self.maxAddresses - Self.maxAddresses / 8 { buckets.removeAll() }
    }
}
