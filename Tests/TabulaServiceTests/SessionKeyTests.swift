import Testing
import TabulaHTTP
@testable import TabulaService

/// Session keys match by the token's exact bytes, whatever storage the strings live in.
@Suite struct SessionKeyTests {
    @Test func tokensWithTheSameBytesMatchAcrossStorage() {
        let token = SessionToken.make()
        // As a request brings it: a new string decoded from bytes, not the stored one.
        let received = String(decoding: Array(token.utf8), as: UTF8.self)
        #expect(SessionKey(token) == SessionKey(received))
        #expect(SessionKey(token).hash == SessionKey(received).hash)
        let map = ShardedDictionary<SessionKey, Int>(shards: 4)
        map[SessionKey(token)] = 7
        #expect(map[SessionKey(received)] == 7)
    }

    @Test func tokensDifferingInOneByteDoNotMatch() {
        let token = SessionToken.make()
        var bytes = Array(token.utf8)
        bytes[bytes.count - 1] = bytes[bytes.count - 1] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let other = String(decoding: bytes, as: UTF8.self)
        #expect(SessionKey(token) != SessionKey(other))
        #expect(SessionKey(token) != SessionKey(String(token.dropLast())))
        let map = ShardedDictionary<SessionKey, Int>(shards: 4)
        map[SessionKey(token)] = 7
        #expect(map[SessionKey(other)] == nil)
    }

    @Test func canonicallyEquivalentTextIsNotTheSameToken() {
        // Equal as Swift strings (U+212A KELVIN SIGN is canonically "K"); the key's hash
        // is over the bytes, so not as tokens.
        #expect("\u{212A}" == "K")
        #expect(SessionKey("\u{212A}") != SessionKey("K"))
        #expect(SessionKey("") == SessionKey(""))
    }
}
