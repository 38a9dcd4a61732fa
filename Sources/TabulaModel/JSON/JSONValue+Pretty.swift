extension JSONValue {
    /// Indented JSON text for people (command-line output), keys in ascending byte order.
    public func prettyText(indentation: Int = 2) -> String {
        var output = ""
        appendPretty(to: &output, level: 0, indentation: indentation)
        return output
    }

    private func appendPretty(to output: inout String, level: Int, indentation: Int) {
        let padding = String(repeating: " ", count: (level + 1) * indentation)
        let closingPadding = String(repeating: " ", count: level * indentation)
        switch self {
        case .array(let elements) where !elements.isEmpty:
            output += "[\n"
            for (position, element) in elements.enumerated() {
                output += padding
                element.appendPretty(to: &output, level: level + 1, indentation: indentation)
                output += position == elements.count - 1 ? "\n" : ",\n"
            }
            output += closingPadding + "]"
        case .object(let object) where !object.isEmpty:
            output += "{\n"
            let keys = object.keys.sorted { $0.utf8Precedes($1) }
            for (position, key) in keys.enumerated() {
                output += padding + JSONValue.string(key).canonicalText + ": "
                object[key]?.appendPretty(to: &output, level: level + 1, indentation: indentation)
                output += position == keys.count - 1 ? "\n" : ",\n"
            }
            output += closingPadding + "}"
        default:
            output += canonicalText
        }
    }
}
