import TabulaPlatform

/// The libcrypto functions Tabula calls, and SHA-256 looked up once: session tokens'
/// digests (``TokenDigest``) and the signatures of calls to the backend
/// (``ActionSignature``). A maintained implementation, loaded with `dlopen` on first use: a
/// process on the memory store that calls no backend never maps it.
///
/// The one-shot `SHA256()` looks the algorithm up on every call, which costs more than the
/// hashing; a fetched algorithm is immutable, so every thread shares it.
struct LibCrypto: @unchecked Sendable {
    typealias Digest =
        @convention(c) (
            UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?, OpaquePointer?, OpaquePointer?
        ) -> Int32
    typealias Fetch = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> OpaquePointer?
    typealias MAC =
        @convention(c) (
            OpaquePointer?, UnsafeRawPointer?, Int32, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?,
            UnsafeMutablePointer<UInt32>?
        ) -> UnsafeMutablePointer<UInt8>?

    let digest: Digest
    let hmac: MAC
    let sha256: OpaquePointer

    /// Loaded on first use; the failure says what to install when it is missing.
    static let shared: Result<LibCrypto, LoadFailure> = load()

    struct LoadFailure: Error, CustomStringConvertible {
        let description: String
    }

    private static func load() -> Result<LibCrypto, LoadFailure> {
        let name = "libcrypto.so.3"
        guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(LoadFailure(description: "cannot load \(name) (\(reason)); install the libssl3 package"))
        }
        guard let fetchAddress = dlsym(library, "EVP_MD_fetch"), let digestAddress = dlsym(library, "EVP_Digest"),
            let hmacAddress = dlsym(library, "HMAC")
        else {
            return .failure(LoadFailure(description: "\(name) lacks EVP_MD_fetch, EVP_Digest or HMAC; install a current libssl3"))
        }
        let fetch = unsafeBitCast(fetchAddress, to: Fetch.self)
        guard let sha256 = fetch(nil, "SHA256", nil) else {
            return .failure(LoadFailure(description: "\(name) offers no SHA-256 (EVP_MD_fetch failed)"))
        }
        return .success(
            LibCrypto(digest: unsafeBitCast(digestAddress, to: Digest.self), hmac: unsafeBitCast(hmacAddress, to: MAC.self), sha256: sha256))
    }

    /// HMAC-SHA256 of `message` under `key` (32 bytes); `nil` if libcrypto failed.
    func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8]? {
        var mac = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = key.withUnsafeBytes { key in
            message.withUnsafeBufferPointer { message in
                mac.withUnsafeMutableBufferPointer { output in
                    hmac(sha256, key.baseAddress, Int32(key.count), message.baseAddress, message.count, output.baseAddress, &length) != nil
                }
            }
        }
        return done && length == 32 ? mac : nil
    }

    /// Lowercase hex.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
