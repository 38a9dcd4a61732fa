/// A lexical token of the expression language, with its offset in Unicode scalars.
struct ExpressionToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        case number(Double)
        case string(String)
        case symbol(String)  // ! && || == != < <= > >= ? : ( ) . - + * / ,
        /// `@key`: a message of the string tables.
        case message(String)
        case end
    }

    var kind: Kind
    var offset: Int
}

/// Splits an expression into tokens.
struct ExpressionLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    static func tokens(_ source: String) throws(ExpressionError) -> [ExpressionToken] {
        var lexer = ExpressionLexer(source)
        var tokens: [ExpressionToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private mutating func next() throws(ExpressionError) -> ExpressionToken {
        while index < scalars.count && scalars[index].properties.isWhitespace { index += 1 }
        let start = index
        guard index < scalars.count else { return ExpressionToken(kind: .end, offset: start) }
        let scalar = scalars[index]
        if scalar == "_" || scalar.properties.isAlphabetic {
            var name = ""
            while index < scalars.count
                && (scalars[index] == "_" || scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index]))
            {
                name.unicodeScalars.append(scalars[index])
                index += 1
            }
            return ExpressionToken(kind: .identifier(name), offset: start)
        }
        if scalar == "@" {
            index += 1
            var key = ""
            while index < scalars.count, StringTables.isKeyCharacter(scalars[index]) {
                key.unicodeScalars.append(scalars[index])
                index += 1
            }
            guard !key.isEmpty else { throw ExpressionError("expected a message key after '@', such as @settings.title", at: start) }
            return ExpressionToken(kind: .message(key), offset: start)
        }
        if ("0"..."9").contains(scalar) {
            return ExpressionToken(kind: .number(try number()), offset: start)
        }
        if scalar == "'" || scalar == "\"" {
            return ExpressionToken(kind: .string(try string(quote: scalar)), offset: start)
        }
        for symbol in ["&&", "||", "==", "!=", "<=", ">="] where matches(symbol) {
            index += 2
            return ExpressionToken(kind: .symbol(symbol), offset: start)
        }
        if "!<>?:().-+*/,".unicodeScalars.contains(scalar) {
            index += 1
            return ExpressionToken(kind: .symbol(String(scalar)), offset: start)
        }
        if scalar == "=" {
            throw ExpressionError("unexpected '='; use '==' to compare", at: start)
        }
        if scalar == "&" || scalar == "|" {
            throw ExpressionError("unexpected '\(scalar)'; use '\(scalar)\(scalar)'", at: start)
        }
        throw ExpressionError("unexpected character '\(scalar)'", at: start)
    }

    private func matches(_ symbol: String) -> Bool {
        let symbolScalars = Array(symbol.unicodeScalars)
        guard index + symbolScalars.count <= scalars.count else { return false }
        return Array(scalars[index..<index + symbolScalars.count]) == symbolScalars
    }

    private mutating func number() throws(ExpressionError) -> Double {
        let start = index
        var text = ""
        while index < scalars.count && (("0"..."9").contains(scalars[index]) || scalars[index] == ".") {
            text.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard let value = Double(text), value.isFinite, text.last != "." else {
            throw ExpressionError("malformed number '\(text)'", at: start)
        }
        return value
    }

    private mutating func string(quote: Unicode.Scalar) throws(ExpressionError) -> String {
        let start = index
        index += 1
        var text = ""
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == quote {
                index += 1
                return text
            }
            if scalar == "\\" && index + 1 < scalars.count {
                text.unicodeScalars.append(scalars[index + 1])
                index += 2
                continue
            }
            text.unicodeScalars.append(scalar)
            index += 1
        }
        throw ExpressionError("unterminated string; close it with \(quote)", at: start)
    }
}
