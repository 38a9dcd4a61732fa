import CCrypto

/// What the durable stores keep of a session token: its SHA-256, in lowercase hex. A copy of
/// the database then names every session without letting anyone act as its user: a token
/// is 192 random bits (``SessionToken``), so it cannot be found from its digest. No salt is
/// needed for that, and none is used, so that a token is looked up by its digest directly.
///
/// Hashed by OpenSSL's libcrypto, a maintained implementation (the core's own SHA-256 names
/// definitions and is not used for secrets).
enum TokenDigest {
    /// The digest of `token`, as the stores' `token_hash` columns hold it.
    static func of(_ token: String) -> String {
        var token = token
        return token.withUTF8 { of(UnsafeRawBufferPointer($0)) }
    }

    /// SHA-256 looked up in libcrypto once: the one-shot `SHA256()` looks it up on every
    /// call, which costs more than the hashing (stores hash a token per durable read or
    /// commit). Shared by every thread: a fetched algorithm is immutable.
    private nonisolated(unsafe) static let algorithm = EVP_MD_fetch(nil, "SHA256", nil)

    static func of(_ bytes: UnsafeRawBufferPointer) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        digest.withUnsafeMutableBufferPointer { output in
            let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var length: UInt32 = 0
            if let algorithm, EVP_Digest(input, bytes.count, output.baseAddress, &length, algorithm, nil) == 1 { return }
            _ = SHA256(input, bytes.count, output.baseAddress)
        }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
