/// Session tokens: 192 random bits from the system's cryptographic source (`getrandom` on
/// Linux, through `SystemRandomNumberGenerator`), written in URL-safe base64 without
/// padding: 32 characters of `A–Z a–z 0–9 - _`.
enum SessionToken {
    static let length = 32

    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        for _ in 0..<3 {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return base64URL(bytes)
    }

    /// Whether a string has the shape of a token (so garbage never reaches the store).
    static func isWellFormed(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { isWellFormed(UnsafeRawBufferPointer($0)) }
    }

    /// Whether bytes have the shape of a token.
    static func isWellFormed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == length else { return false }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            default:
                return false
            }
        }
        return true
    }

    /// A short, non-secret prefix for logs.
    static func logPrefix(_ token: String) -> String {
        String(token.prefix(logPrefixLength))
    }

    /// ``logPrefix(_:)`` of a token's bytes. Made in place: `String(decoding:as:)` runs its
    /// general repairing decoder on every quick `GET`.
    static func logPrefix(_ bytes: UnsafeRawBufferPointer) -> String {
        let count = min(bytes.count, logPrefixLength)
        return String(unsafeUninitializedCapacity: count) { buffer in
            guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return 0 }
            target.update(from: source.assumingMemoryBound(to: UInt8.self), count: count)
            return count
        }
    }

    static let logPrefixLength = 8

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func base64URL(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var index = 0
        while index + 2 < bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int((value >> UInt32(shift)) & 63)]) }
            index += 3
        }
        let remaining = bytes.count - index
        if remaining > 0 {
            var value = UInt32(bytes[index]) << 16
            if remaining == 2 { value |= UInt32(bytes[index + 1]) << 8 }
            let characters = remaining == 1 ? 2 : 3
            for position in 0..<characters { output.append(alphabet[Int((value >> UInt32(18 - position * 6)) & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
