import HTTPTypes
import TabulaHTTP

/// The shared secret every `/v1` request must carry as `Authorization: Bearer <key>` when
/// the service is started with `--api-key`.
public struct APIKey: Sendable {
    private let key: [UInt8]

    /// `nil` when `text` cannot travel in a header: empty, or with spaces or control characters.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        key = bytes
    }

    /// Whether an Authorization header's value is `Bearer <key>` (the scheme in any case).
    /// The comparison takes the same time wherever the first difference is, so timing does
    /// not reveal the key.
    func authorizes(headerValue header: UnsafeRawBufferPointer) -> Bool {
        let prefix: StaticString = "bearer "
        let prefixLength = prefix.utf8CodeUnitCount
        guard header.count > prefixLength, ASCII.equalIgnoringCase(UnsafeRawBufferPointer(rebasing: header[..<prefixLength]), prefix)
        else { return false }
        let presented = UnsafeRawBufferPointer(rebasing: header[prefixLength...])
        var difference = UInt8(truncatingIfNeeded: presented.count ^ key.count)
        for index in key.indices {
            difference |= key[index] ^ (index < presented.count ? presented[index] : 0)
        }
        return difference == 0
    }
}
