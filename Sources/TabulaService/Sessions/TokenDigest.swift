import TabulaPlatform

/// What the durable stores keep of a session token: its SHA-256, in lowercase hex. A copy of
/// the database then names every session without letting anyone act as its user: a token
/// is 192 random bits (``SessionToken``), so it cannot be found from its digest. No salt is
/// needed for that, and none is used, so that a token is looked up by its digest directly.
///
/// Hashed by OpenSSL's libcrypto, a maintained implementation (the core's own SHA-256 names
/// definitions and is not used for secrets), loaded with `dlopen` on the first digest: a
/// process on the memory store never maps it, and one on SQLite only once a session is used
/// (resident memory at idle, which `Scripts/bench` prints).
enum TokenDigest {
    /// The digest of `token`, as the stores' `token_hash` columns hold it; throws when
    /// libcrypto cannot be loaded.
    static func of(_ token: String) throws(StoreError) -> String {
        let crypto = try LibCrypto.shared.get()
        var token = token
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let hashed = token.withUTF8 { text in
            digest.withUnsafeMutableBufferPointer { output in
                crypto.digest(text.baseAddress, text.count, output.baseAddress, &length, crypto.sha256, nil)
            }
        }
        guard hashed == 1, length == 32 else { throw StoreError("libcrypto could not hash a session token (EVP_Digest failed)") }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The two libcrypto functions ``TokenDigest`` calls, and SHA-256 looked up once: the
/// one-shot `SHA256()` looks the algorithm up on every call, which costs more than the
/// hashing. A fetched algorithm is immutable, so every thread shares it.
private struct LibCrypto: @unchecked Sendable {
    typealias Digest =
        @convention(c) (
            UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?, OpaquePointer?, OpaquePointer?
        ) -> Int32
    typealias Fetch = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> OpaquePointer?

    let digest: Digest
    let sha256: OpaquePointer

    /// Loaded on first use; the error says what to install when it is missing.
    static let shared: Result<LibCrypto, StoreError> = load()

    private static func load() -> Result<LibCrypto, StoreError> {
        let name = "libcrypto.so.3"
        guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(StoreError("cannot load \(name) (\(reason)), which hashes session tokens; install the libssl3 package"))
        }
        guard let fetchAddress = dlsym(library, "EVP_MD_fetch"), let digestAddress = dlsym(library, "EVP_Digest") else {
            return .failure(StoreError("\(name) lacks EVP_MD_fetch or EVP_Digest; install a current libssl3"))
        }
        let fetch = unsafeBitCast(fetchAddress, to: Fetch.self)
        guard let sha256 = fetch(nil, "SHA256", nil) else { return .failure(StoreError("\(name) offers no SHA-256 (EVP_MD_fetch failed)")) }
        return .success(LibCrypto(digest: unsafeBitCast(digestAddress, to: Digest.self), sha256: sha256))
    }
}
