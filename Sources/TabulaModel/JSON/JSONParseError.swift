/// Why a byte sequence is not acceptable JSON, and where.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Error, Hashable, Sendable {
        case empty
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case invalidUTF8
        case controlCharacterInString
        case invalidEscape
        case invalidUnicodeEscape
        case invalidNumber
        case numberOutOfRange
        case duplicateKey(String)
        case nestingTooDeep(limit: Int)
        case trailingCharacters
    }

    public var reason: Reason
    /// Zero-based byte offset of the problem.
    public var offset: Int
    /// One-based line of the problem.
    public var line: Int
    /// One-based column (in bytes) of the problem.
    public var column: Int

    public init(reason: Reason, offset: Int, line: Int, column: Int) {
        self.reason = reason
        self.offset = offset
        self.line = line
        self.column = column
    }

    public var description: String {
        "\(reasonText) at line \(line), column \(column)"
    }

    /// The reason alone, without the position.
    public var reasonText: String {
        switch reason {
        case .empty: "the document is empty; expected a JSON value"
        case .unexpectedEnd: "the document ends too early (truncated JSON?)"
        case .unexpectedByte(let byte): "unexpected \(Self.describe(byte))"
        case .invalidUTF8: "the text is not valid UTF-8"
        case .controlCharacterInString: "a control character must be escaped inside a string"
        case .invalidEscape: "invalid escape sequence in a string"
        case .invalidUnicodeEscape: "invalid \\u escape (bad hex digits or an unpaired surrogate)"
        case .invalidNumber: "malformed number"
        case .numberOutOfRange: "number is too large or too small (but not zero) to represent"
        case .duplicateKey(let key): "duplicate key \"\(key)\" in an object"
        case .nestingTooDeep(let limit): "nesting is deeper than \(limit) levels"
        case .trailingCharacters: "unexpected characters after the JSON value"
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }
}
