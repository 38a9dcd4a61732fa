import TabulaPlatform

/// What the durable stores keep of a session token: its SHA-256, in lowercase hex. A copy of
/// the database then names every session without letting anyone act as its user: a token
/// is 192 random bits (``SessionToken``), so it cannot be found from its digest. No salt is
/// needed for that, and none is used, so that a token is looked up by its digest directly.
///
/// Hashed by OpenSSL's libcrypto (``LibCrypto``), a maintained implementation (the core's
/// own SHA-256 names definitions and is not used for secrets), loaded on the first digest: a
/// process on the memory store never maps it, and one on SQLite only once a session is used
/// (resident memory at idle, which `Scripts/bench` prints).
enum TokenDigest {
    /// The digest of `token`, as the stores' `token_hash` columns hold it; throws when
    /// libcrypto cannot be loaded.
    static func of(_ token: String) throws(StoreError) -> String {
        let crypto: LibCrypto
        switch LibCrypto.shared {
        case .success(let loaded): crypto = loaded
        case .failure(let reason): throw StoreError("\(reason), which hashes session tokens")
        }
        var token = token
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let hashed = token.withUTF8 { text in
            digest.withUnsafeMutableBufferPointer { output in
                crypto.digest(text.baseAddress, text.count, output.baseAddress, &length, crypto.sha256, nil)
            }
        }
        guard hashed == 1, length == 32 else { throw StoreError("libcrypto could not hash a session token (EVP_Digest failed)") }
        return LibCrypto.hex(digest)
    }
}
