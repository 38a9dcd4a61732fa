/// The text of a message, or of one plural form of it: literal text with `{name}`
/// placeholders, each replaced by the argument of that name (`"{count} known networks"`).
/// A brace that does not enclose a name is text.
public struct MessageText: Hashable, Sendable {
    enum Part: Hashable, Sendable {
        case text(String)
        case argument(String)
    }

    public let source: String
    let parts: [Part]

    public init(_ source: String) {
        self.source = source
        var parts: [Part] = []
        var text = ""
        var rest = Substring(source)
        while let open = rest.firstIndex(of: "{") {
            text += rest[..<open]
            let afterOpen = rest.index(after: open)
            // A name holds no brace: the search stops at the next one, so that a text of many
            // braces is read in one pass.
            if let close = rest[afterOpen...].firstIndex(where: { $0 == "}" || $0 == "{" }), rest[close] == "}",
                DefinitionReader.isIdentifier(String(rest[afterOpen..<close]))
            {
                if !text.isEmpty { parts.append(.text(text)) }
                text = ""
                parts.append(.argument(String(rest[afterOpen..<close])))
                rest = rest[rest.index(after: close)...]
            } else {
                text += "{"
                rest = rest[afterOpen...]
            }
        }
        text += rest
        if !text.isEmpty { parts.append(.text(text)) }
        self.parts = parts
    }

    /// The text, when it has no placeholder: the same for any arguments.
    var fixedText: String? {
        var text = ""
        for part in parts {
            guard case .text(let literal) = part else { return nil }
            text += literal
        }
        return text
    }

    /// The names of the placeholders.
    public var argumentNames: Set<String> {
        Set(
            parts.compactMap { part in
                if case .argument(let name) = part { return name }
                return nil
            })
    }

    func text(_ arguments: [String: FieldValue], numbers: (any LocaleNumbers)?) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .text(let text): result += text
            case .argument(let name):
                switch arguments[name] {
                case .number(let number)?: result += numbers?.format(number) ?? Template.text(of: .number(number))
                case let value?: result += Template.text(of: value)
                case nil: result += "{\(name)}"
                }
            }
        }
        return result
    }
}

/// A message of a string table: one text, or one per plural form (`other` always among
/// them), chosen by the number given as the argument `count`.
public enum Message: Hashable, Sendable {
    case text(MessageText)
    case plural([PluralCategory: MessageText])

    /// The argument whose number chooses a plural message's form.
    public static let countArgument = "count"

    /// The text, when it is one text without placeholders: the same for any arguments.
    var fixedText: String? {
        if case .text(let text) = self { return text.fixedText }
        return nil
    }

    /// The names of the placeholders of every form.
    public var argumentNames: Set<String> {
        switch self {
        case .text(let text): text.argumentNames
        case .plural(let forms): forms.values.reduce(into: Set<String>()) { $0.formUnion($1.argumentNames) }
        }
    }

    public var isPlural: Bool {
        if case .plural = self { return true }
        return false
    }

    /// The message with the arguments in place, in the locale `numbers` describes.
    func text(_ arguments: [String: FieldValue], numbers: (any LocaleNumbers)?) -> String {
        switch self {
        case .text(let text):
            return text.text(arguments, numbers: numbers)
        case .plural(let forms):
            var category = PluralCategory.other
            if case .number(let count)? = arguments[Self.countArgument], let numbers { category = numbers.pluralCategory(of: count) }
            guard let form = forms[category] ?? forms[.other] else { return "" }
            return form.text(arguments, numbers: numbers)
        }
    }

    /// As a table writes it: the text, or `{"one": ..., "other": ...}`.
    var json: JSONValue {
        switch self {
        case .text(let text): return .string(text.source)
        case .plural(let forms):
            var object = JSONObject()
            for (category, text) in forms { object[category.rawValue] = .string(text.source) }
            return .object(object)
        }
    }
}
