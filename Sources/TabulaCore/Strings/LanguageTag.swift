/// BCP 47 language tags, as clients name their language and string tables their locale.
public enum LanguageTag {
    /// The longest tag accepted, in bytes.
    public static let maxBytes = 35

    /// A well-formed tag in its usual case: language lower case, a four-letter script
    /// capitalized, a two-letter region upper case (`pt-br` → `pt-BR`); `nil` when the tag is
    /// not letters and digits in subtags of one to eight, beginning with a language of two
    /// to eight letters.
    public static func canonical(_ tag: String) -> String? {
        guard !tag.isEmpty, tag.utf8.count <= maxBytes else { return nil }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let language = subtags.first, (2...8).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return nil
        }
        var canonical = [language.lowercased()]
        for subtag in subtags.dropFirst() {
            guard (1...8).contains(subtag.count), subtag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
            switch subtag.count {
            case 2 where subtag.allSatisfy(\.isLetter): canonical.append(subtag.uppercased())
            case 4 where subtag.allSatisfy(\.isLetter): canonical.append(subtag.prefix(1).uppercased() + subtag.dropFirst().lowercased())
            default: canonical.append(subtag.lowercased())
            }
        }
        return canonical.joined(separator: "-")
    }

    /// The tag and the shorter tags it falls back to, most specific first, as RFC 4647's
    /// lookup truncates them: `zh-Hant-TW`, `zh-Hant`, `zh` (a single-letter subtag is
    /// dropped with the one after it).
    public static func truncations(_ tag: String) -> [String] {
        var subtags = tag.split(separator: "-").map(String.init)
        var result: [String] = []
        while !subtags.isEmpty {
            result.append(subtags.joined(separator: "-"))
            subtags.removeLast()
            if subtags.count > 1, subtags.last?.count == 1 { subtags.removeLast() }
        }
        return result
    }

    /// The language ranges of an `Accept-Language` header, best first (by weight, then in
    /// the order given), and those it refuses (`q=0`), in lower case; malformed ranges are
    /// left out.
    public static func ranges(acceptLanguage header: String) -> (ranges: [String], refused: Set<String>) {
        var weighted: [(range: String, weight: Double, order: Int)] = []
        var refused: Set<String> = []
        for (order, item) in header.split(separator: ",").enumerated() {
            let parameters = item.split(separator: ";").map { $0.trimmingASCIIWhitespace() }
            guard let range = parameters.first, !range.isEmpty else { continue }
            var weight = 1.0
            for parameter in parameters.dropFirst() where parameter.hasPrefix("q=") || parameter.hasPrefix("Q=") {
                weight = Double(parameter.dropFirst(2)) ?? -1
            }
            guard weight >= 0, weight <= 1, let tag = range == "*" ? "*" : canonical(range) else { continue }
            if weight == 0 {
                refused.insert(tag.lowercased())
            } else {
                weighted.append((tag, weight, order))
            }
        }
        return (weighted.sorted { ($0.weight, -$0.order) > ($1.weight, -$1.order) }.map(\.range), refused)
    }
}

extension StringProtocol {
    fileprivate func trimmingASCIIWhitespace() -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
