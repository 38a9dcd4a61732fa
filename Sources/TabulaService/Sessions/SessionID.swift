/// A session's public id: `s_` and 20 characters of lowercase base32 (RFC 4648's alphabet,
/// `a–z 2–7`), 100 random bits. Not a secret: the backend names sessions by it in URLs, and
/// logs and the feed may show it, so that the token (``SessionToken``) never has to travel
/// anywhere but between a client and the service.
public enum SessionID {
    static let prefix = "s_"
    static let randomCharacters = 20
    static let length = prefix.utf8.count + randomCharacters

    private static let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bits = (generator.next() as UInt64, generator.next() as UInt64)
        var characters = Array(prefix.utf8)
        for index in 0..<randomCharacters {
            // 12 characters from the first word (60 bits), 8 from the second (40 bits).
            if index < 12 {
                characters.append(alphabet[Int(bits.0 & 31)])
                bits.0 >>= 5
            } else {
                characters.append(alphabet[Int(bits.1 & 31)])
                bits.1 >>= 5
            }
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Whether a string has the shape of an id, so that garbage never reaches the store.
    public static func isWellFormed(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count == length, bytes.starts(with: prefix.utf8) else { return false }
        return bytes.dropFirst(prefix.utf8.count).allSatisfy { alphabet.contains($0) }
    }
}
