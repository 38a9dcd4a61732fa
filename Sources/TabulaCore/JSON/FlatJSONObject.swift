/// A quick reading of the JSON objects small requests send: one object whose values are
/// plain strings, booleans or small whole numbers (`{"row":"bluetooth","isOn":true}`).
///
/// It reads that shape in one pass, without building a ``JSONObject``, and gives up
/// (`nil`) on anything else: escapes, non-ASCII text, other values, nesting, duplicate
/// keys, more than ``maxMembers`` members, or a document that is not one object. The caller
/// then parses with ``JSONParser``, which accepts or refuses it with an exact error. What it
/// reads, it reads as ``JSONParser`` would: the same members, in the order written.
package enum FlatJSONObject {
    /// Objects with more members are left to ``JSONParser``.
    package static let maxMembers = 8
    /// Longer numbers are left to ``JSONParser`` (up to 15 digits, a `Double` is exact).
    static let maxDigits = 15

    /// The object's members in written order, or `nil` when the body is not of this shape.
    package static func members(of bytes: [UInt8]) -> [(key: String, value: JSONValue)]? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            return reader.readObject()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func readObject() -> [(key: String, value: JSONValue)]? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [(key: String, value: JSONValue)] = []
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    guard members.count < FlatJSONObject.maxMembers, let key = readPlainString() else { return nil }
                    guard !members.contains(where: { $0.key == key }) else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    guard let value = readValue() else { return nil }
                    if members.isEmpty { members.reserveCapacity(4) }
                    members.append((key, value))
                    skipWhitespace()
                    if take(UInt8(ascii: "}")) { break }
                    guard take(UInt8(ascii: ",")) else { return nil }
                    skipWhitespace()
                }
            }
            skipWhitespace()
            return index == bytes.count ? members : nil
        }

        /// A string of printable ASCII without escapes.
        mutating func readPlainString() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
                }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        mutating func readValue() -> JSONValue? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return readPlainString().map { .string($0) }
            case UInt8(ascii: "t"):
                return take("true") ? .bool(true) : nil
            case UInt8(ascii: "f"):
                return take("false") ? .bool(false) : nil
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                return readWholeNumber()
            default:
                return nil
            }
        }

        /// `0` or a number without sign, fraction or exponent, of at most ``maxDigits`` digits.
        mutating func readWholeNumber() -> JSONValue? {
            let start = index
            var value = 0
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                value = value * 10 + digit
                index += 1
                guard index - start <= FlatJSONObject.maxDigits else { return nil }
            }
            // A leading zero, a fraction or an exponent: JSONParser's to read or refuse.
            if bytes[start] == UInt8(ascii: "0") && index - start > 1 { return nil }
            if index < bytes.count {
                let next = bytes[index]
                if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") { return nil }
            }
            return .number(Double(value))
        }

        static func digit(_ byte: UInt8) -> Int? {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func take(_ word: StaticString) -> Bool {
            let length = word.utf8CodeUnitCount
            guard index + length <= bytes.count else { return false }
            for offset in 0..<length where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += length
            return true
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }
    }
}
