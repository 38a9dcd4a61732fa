import TabulaModel

/// A screen as text for a terminal: its title, then each section's header, rows and footer,
/// a row as its kind and string fields, with a switch's or a checkmark's state. Control
/// characters in the screen's texts (a backend's state may hold any) are written as `\u{…}`
/// escapes: an escape sequence would otherwise reach the terminal, which obeys it (clearing
/// the screen, setting its title), and a line break would break the table.
struct ScreenTable {
    let text: String

    init(_ screen: Screen) {
        var lines = ["\(screen.title)    (revision \(screen.revision)\(screen.item.map { ", item \($0)" } ?? ""))"]
        for section in screen.sections {
            lines.append("")
            if let header = section.header { lines.append("  " + Self.describe(header.fields.map { ($0.name, $0.value.json) }).uppercased()) }
            for row in section.rows {
                var cells = [Self.describe(row.content.fields)]
                if !row.enabled { cells.append("(disabled)") }
                if let error = row.error { cells.append("! \(error)") }
                lines.append("  | \(row.kind.padding(16)) " + cells.filter { !$0.isEmpty }.joined(separator: "  "))
            }
            if let footer = section.footer { lines.append("  " + Self.describe(footer.fields.map { ($0.name, $0.value.json) })) }
        }
        text = lines.map(Self.escapingControlCharacters).joined(separator: "\n")
    }

    static func escapingControlCharacters(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: isControl) else { return line }
        var escaped = String.UnicodeScalarView()
        for scalar in line.unicodeScalars {
            if isControl(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// C0 and C1 controls and DEL: what a terminal may act on.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func describe(_ fields: [(name: String, value: JSONValue)]) -> String {
        fields.compactMap { field -> String? in
            switch field.value {
            case .string(let text): text.isEmpty ? nil : text
            case .bool(let flag): "\(field.name): \(flag ? "on" : "off")"
            case .number(let number): "\(field.name): \(number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number))"
            case .null: nil
            case .array(let items): "\(field.name): \(items.count) options"
            case .object: nil
            }
        }.joined(separator: "  ")
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
