import HTTPTypes
import TabulaHTTP

/// The shared secret every `/v1` request must carry as `Authorization: Bearer <key>` when
/// the service is started with `--api-key` (and the backend's, `--backend-key`).
public struct APIKey: Sendable {
    private let key: [UInt8]

    /// The fewest characters a key may have: shorter ones are guessed too easily.
    public static let minimumLength = 16

    /// Why a text cannot be a key.
    public enum Unusable: Error, Sendable, Equatable, CustomStringConvertible {
        /// It has fewer than ``APIKey/minimumLength`` characters.
        case tooShort(length: Int)
        /// It cannot travel in a header: spaces, control characters or non-ASCII.
        case notPrintableASCII

        public var description: String {
            switch self {
            case .tooShort(let length):
                "it has \(length) characters; a key needs at least \(APIKey.minimumLength) (try: openssl rand -hex 24)"
            case .notPrintableASCII:
                "it must be printable ASCII without spaces (it travels as Authorization: Bearer KEY)"
            }
        }
    }

    /// Takes `text` as a key, or says why it cannot be one.
    public init(validating text: String) throws(Unusable) {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .notPrintableASCII }
        guard bytes.count >= Self.minimumLength else { throw .tooShort(length: bytes.count) }
        key = bytes
    }

    /// `nil` when `text` cannot be a key (see ``init(validating:)``).
    public init?(_ text: String) {
        guard let key = try? APIKey(validating: text) else { return nil }
        self = key
    }

    /// Whether an Authorization header's value is `Bearer <key>` (the scheme in any case).
    /// The comparison takes the same time wherever the first difference is, and whatever
    /// the presented length, so timing does not reveal the key; lengths are compared whole.
    func authorizes(headerValue header: UnsafeRawBufferPointer) -> Bool {
        let prefix: StaticString = "bearer "
        let prefixLength = prefix.utf8CodeUnitCount
        guard header.count > prefixLength, ASCII.equalIgnoringCase(UnsafeRawBufferPointer(rebasing: header[..<prefixLength]), prefix)
        else { return false }
        let presented = UnsafeRawBufferPointer(rebasing: header[prefixLength...])
        var difference = presented.count ^ key.count
        for index in key.indices {
            difference |= Int(key[index] ^ (index < presented.count ? presented[index] : 0))
        }
        return difference == 0
    }
}
