import TabulaHTTP
import TabulaPlatform
import Testing

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

    @Test func aKeyFromTheHeadersBytesIsTheKeyOfTheToken() {
        let token = SessionToken.make()
        let fromBytes = Array(token.utf8).withUnsafeBytes { SessionKey(bytes: $0) }
        #expect(fromBytes == SessionKey(token))
        #expect(fromBytes.hash == SessionKey(token).hash)
        #expect(fromBytes.token == token)
        #expect(SessionKey("").token == "")
    }

    /// Text longer than a token keeps its first 24 bytes and a hash of all of it: two such
    /// keys are equal exactly when their texts are (short of a 64-bit collision).
    @Test func textLongerThanATokenStaysAKeyOfItsOwn() {
        let long = String(repeating: "A", count: SessionKey.inlineCapacity + 8)
        let differingAtTheEnd = String(long.dropLast()) + "B"
        let differingInTheKeptBytes = "B" + String(long.dropFirst())
        #expect(SessionKey(long) == SessionKey(String(repeating: "A", count: SessionKey.inlineCapacity + 8)))
        #expect(SessionKey(long) != SessionKey(differingAtTheEnd))
        #expect(SessionKey(long) != SessionKey(differingInTheKeptBytes))
        #expect(SessionKey(long) != SessionKey(String(long.prefix(SessionKey.inlineCapacity))))
        let map = ShardedDictionary<SessionKey, Int>(shards: 4)
        map[SessionKey(long)] = 1
        map[SessionKey(differingAtTheEnd)] = 2
        #expect(map[SessionKey(long)] == 1)
        #expect(map[SessionKey(differingAtTheEnd)] == 2)
    }

    /// Keys hash without a Hasher; a dictionary of many of them must still find each one.
    @Test func manyKeysInOneDictionaryAreEachFound() {
        let tokens = (0..<5000).map { _ in SessionToken.make() }
        var map: [SessionKey: Int] = [:]
        for (index, token) in tokens.enumerated() { map[SessionKey(token)] = index }
        #expect(map.count == tokens.count)
        for (index, token) in tokens.enumerated() where map[SessionKey(token)] != index {
            Issue.record("token \(index) not found")
        }
        var copy: [SessionKey: Int] = [:]
        for (key, value) in map { copy[key] = value }
        #expect(copy == map)
    }

    @Test func canonicallyEquivalentTextIsNotTheSameToken() {
        // Equal as Swift strings (U+212A KELVIN SIGN is canonically "K"); the key's hash
        // is over the bytes, so not as tokens.
        #expect("\u{212A}" == "K")
        #expect(SessionKey("\u{212A}") != SessionKey("K"))
        #expect(SessionKey("") == SessionKey(""))
    }
}

/// A token's shape: exactly the alphabet's bytes, exactly `SessionToken.length` of them.
@Suite struct SessionTokenShapeTests {
    @Test func everyByteIsAllowedExactlyWhenTheAlphabetHasIt() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for byte in UInt8.min...UInt8.max {
            let allSame = [UInt8](repeating: byte, count: SessionToken.length)
            // The byte last, after well-formed ones, and alone.
            var lastOnly = Array(SessionToken.make().utf8)
            lastOnly[lastOnly.count - 1] = byte
            allSame.withUnsafeBytes { #expect(SessionToken.isWellFormed($0) == alphabet.contains(byte), "byte \(byte)") }
            lastOnly.withUnsafeBytes { #expect(SessionToken.isWellFormed($0) == alphabet.contains(byte), "byte \(byte) last") }
        }
    }

    @Test func tokensAreWellFormedAndOtherLengthsAreNot() {
        let token = Array(SessionToken.make().utf8)
        token.withUnsafeBytes { #expect(SessionToken.isWellFormed($0)) }
        Array(token.dropLast()).withUnsafeBytes { #expect(!SessionToken.isWellFormed($0)) }
        (token + [UInt8(ascii: "A")]).withUnsafeBytes { #expect(!SessionToken.isWellFormed($0)) }
        #expect(!SessionToken.isWellFormed(""))
    }

    /// The prefix the access log shows is the same whether made from the token's string (the
    /// full path) or from the header's bytes (the quick path), and never longer than 8 bytes.
    @Test func theLogPrefixOfBytesIsTheLogPrefixOfTheToken() {
        let token = SessionToken.make()
        let fromBytes = Array(token.utf8).withUnsafeBytes { SessionToken.logPrefix($0) }
        #expect(fromBytes == SessionToken.logPrefix(token))
        #expect(fromBytes.utf8.count == SessionToken.logPrefixLength)
        #expect(Array("abc".utf8).withUnsafeBytes { SessionToken.logPrefix($0) } == "abc")
        #expect([UInt8]().withUnsafeBytes { SessionToken.logPrefix($0) } == "")
    }
}
