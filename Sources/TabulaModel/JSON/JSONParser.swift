/// A strict RFC 8259 JSON parser.
///
/// Beyond the RFC it rejects what a service must not accept silently: invalid UTF-8,
/// unpaired surrogates, duplicate object keys, non-finite numbers and nesting deeper
/// than `maxDepth` (so hostile input cannot exhaust the stack).
public struct JSONParser: Sendable {
    /// The deepest nesting of arrays and objects accepted.
    public var maxDepth: Int

    public init(maxDepth: Int = 64) {
        self.maxDepth = maxDepth
    }

    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var failure: (reason: JSONParseError.Reason, offset: Int)?
        let value: JSONValue? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(bytes: buffer, maxDepth: maxDepth)
            do throws(JSONParseError.Reason) {
                return try cursor.parseDocument()
            } catch {
                failure = (error, min(cursor.index, buffer.count))
                return nil
            }
        }
        if let value { return value }
        let (reason, offset) = failure ?? (.unexpectedEnd, bytes.count)
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        throw JSONParseError(reason: reason, offset: offset, line: line, column: column)
    }
}

/// The parser's position over a byte buffer.
private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError.Reason) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw .empty }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw .trailingCharacters }
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError.Reason) -> JSONValue {
        guard index < bytes.count else { throw .unexpectedEnd }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case let byte: throw .unexpectedByte(byte)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError.Reason) {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count else { throw .unexpectedEnd }
            guard bytes[index] == byte else { throw .unexpectedByte(bytes[index]) }
            index += 1
        }
    }

    private mutating func enterNesting() throws(JSONParseError.Reason) {
        depth += 1
        if depth > maxDepth {
            throw .nestingTooDeep(limit: maxDepth)
        }
    }

    private mutating func parseObject() throws(JSONParseError.Reason) -> JSONValue {
        try enterNesting()
        index += 1  // {
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            guard bytes[index] == UInt8(ascii: "\"") else { throw .unexpectedByte(bytes[index]) }
            let keyStart = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            guard bytes[index] == UInt8(ascii: ":") else { throw .unexpectedByte(bytes[index]) }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard object.insertNew(key, value) else {
                index = keyStart
                throw .duplicateKey(key)
            }
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(object)
            case let byte: throw .unexpectedByte(byte)
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError.Reason) -> JSONValue {
        try enterNesting()
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            case let byte: throw .unexpectedByte(byte)
            }
        }
    }

    private mutating func parseString() throws(JSONParseError.Reason) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes. ASCII, the usual case, is valid UTF-8 as it stands, so it
        // skips validation (which costs more than the rest of a short string's parse).
        var allASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if allASCII {
                    index += 1
                    return String(decoding: slice, as: UTF8.self)
                }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    index = start + Self.firstInvalidUTF8Offset(slice)
                    throw .invalidUTF8
                }
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw .controlCharacterInString }
            if byte >= 0x80 { allASCII = false }
            index += 1
        }
        guard index < bytes.count else { throw .unexpectedEnd }
        var buffer = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: buffer, as: UTF8.self) else {
                    throw .invalidUTF8
                }
                index += 1
                return string
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw .controlCharacterInString
            default:
                buffer.append(byte)
                index += 1
            }
        }
        throw .unexpectedEnd
    }

    private static func firstInvalidUTF8Offset(_ slice: UnsafeBufferPointer<UInt8>) -> Int {
        var offset = 0
        var iterator = slice.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return offset
            case .error: return offset
            }
        }
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONParseError.Reason) {
        index += 1  // backslash
        guard index < bytes.count else { throw .unexpectedEnd }
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw .invalidUnicodeEscape }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw .invalidUnicodeEscape }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw .invalidUnicodeEscape
            }
            guard let unicodeScalar = Unicode.Scalar(scalar) else { throw .invalidUnicodeEscape }
            buffer.append(contentsOf: String(Character(unicodeScalar)).utf8)
        default:
            index -= 1
            throw .invalidEscape
        }
    }

    private mutating func parseHex4() throws(JSONParseError.Reason) -> UInt32 {
        guard index + 4 <= bytes.count else { throw .unexpectedEnd }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .invalidUnicodeEscape
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONParseError.Reason) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw .unexpectedEnd }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(bytes[index]) {
            skipDigits()
        } else {
            throw .invalidNumber
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count else { throw .unexpectedEnd }
            guard isDigit(bytes[index]) else { throw .invalidNumber }
            skipDigits()
        }
        let mantissaEnd = index
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard index < bytes.count else { throw .unexpectedEnd }
            guard isDigit(bytes[index]) else { throw .invalidNumber }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw .invalidNumber }
        // Too large becomes infinity; too small (1e-400) becomes zero, which would let a
        // non-zero number pass for 0: both are out of range.
        let underflows = value == 0 && bytes[start..<mantissaEnd].contains { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }
        guard value.isFinite, !underflows else {
            index = start
            throw .numberOutOfRange
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while index < bytes.count && isDigit(bytes[index]) { index += 1 }
    }
}
