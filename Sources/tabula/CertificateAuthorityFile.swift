import ArgumentParser
import TabulaPlatform

/// A PEM file of certificate authorities that an `https` peer's certificate must come from,
/// instead of the system's: `tabula serve --actions-ca-file` for the app's backend, `tabula
/// watch --ca-file` for the service. A file that curl could not read would fail every
/// request at run time, each with the same error: refusing it at the start is clearer.
enum CertificateAuthorityFile {
    /// Checks that `path` is readable and holds a certificate, and that `url` is `https`
    /// (an `http` peer shows no certificate); the usage error names `option` and the `peer`.
    static func check(_ path: String, option: String, url: String, urlOption: String, peer: String) throws {
        guard url.lowercased().hasPrefix("https://") else {
            throw ValidationError("\(option) is for an https \(peer), and \(urlOption) \"\(url)\" is http")
        }
        let bytes: [UInt8]
        do {
            bytes = try Files.read(path)
        } catch {
            throw ValidationError("\(option) cannot be read: \(error.description)")
        }
        guard String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw ValidationError("\(option) \"\(path)\" holds no certificate; give a PEM file, with -----BEGIN CERTIFICATE----- blocks")
        }
    }
}
