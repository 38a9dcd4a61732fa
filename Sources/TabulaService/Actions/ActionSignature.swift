/// How Tabula signs its calls to the app's backend, as Stripe signs webhooks: the header
/// `Tabula-Signature: t=UNIX-SECONDS,v1=HEX`, where HEX is the HMAC-SHA256, under the
/// shared secret (`--actions-secret`), of the seconds, a `.`, and the body's bytes. The
/// time in the signed bytes lets a backend refuse an old request replayed; the backend
/// verifies with ``verify(_:secret:body:now:tolerance:)`` or its own few lines.
public enum ActionSignature {
    public static let headerName = "Tabula-Signature"

    /// The header's value for `body` sent at `time` (Unix seconds); `nil` when libcrypto
    /// cannot be loaded or fails.
    public static func header(secret: String, time: Int, body: [UInt8]) -> String? {
        mac(secret: secret, stamp: Substring("\(time)"), body: body).map { "t=\(time),v1=\(LibCrypto.hex($0))" }
    }

    /// Whether `header` signs `body` under `secret` at a time within `tolerance` seconds
    /// of `now`. Any of several `v1` signatures may match (a backend changing its secret
    /// checks both); the comparison takes the same time wherever the bytes differ.
    public static func verify(_ header: String, secret: String, body: [UInt8], now: Int, tolerance: Int = 300) -> Bool {
        var stamp: Substring?
        var signatures: [Substring] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            switch pair[0].trimmingPrefix(" ") {
            case "t": stamp = pair[1]
            case "v1": signatures.append(pair[1])
            default: continue
            }
        }
        // Digits only, as sent (the signed bytes are the header's), and few enough that no
        // sum below overflows.
        guard let stamp, (1...18).contains(stamp.utf8.count), stamp.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let time = Int(stamp), time >= now - tolerance, time <= now + tolerance,
            let expected = mac(secret: secret, stamp: stamp, body: body)
        else { return false }
        let expectedHex = Array(LibCrypto.hex(expected).utf8)
        return signatures.contains { equalInConstantTime(Array($0.utf8), expectedHex) }
    }

    private static func mac(secret: String, stamp: Substring, body: [UInt8]) -> [UInt8]? {
        guard case .success(let crypto) = LibCrypto.shared else { return nil }
        return crypto.hmacSHA256(key: Array(secret.utf8), Array(stamp.utf8) + Array(".".utf8) + body)
    }

    private static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
