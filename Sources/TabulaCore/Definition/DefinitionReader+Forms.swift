extension DefinitionReader {
    /// Remembers the forms an expression's `valid('FORM')` reads, to check them once the
    /// screen's sections are read.
    mutating func noteForms(_ keys: Set<String>, path: String) {
        let prefix = ExpressionNode.formValidityKey("")
        for key in keys where key.hasPrefix(prefix) { formReferences.append((String(key.dropFirst(prefix.count)), path)) }
    }

    /// Each form a `submit`, `reset` or `valid` names must be a form of this screen's
    /// sections with at least one input row.
    mutating func checkFormReferences(_ sections: [SectionDefinition]) {
        var inputCounts: [String: Int] = [:]
        for section in sections {
            guard let form = section.form else { continue }
            inputCounts[form, default: 0] += section.rows.filter(\.isInput).count
        }
        for (form, path) in formReferences {
            switch inputCounts[form] {
            case nil:
                let known = inputCounts.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                log.add(
                    .structure, at: path,
                    "no section of this screen names the form \"\(form)\"; give its sections \"form\": \"\(form)\"\(known.isEmpty ? "" : " (forms here: \(known))")"
                )
            case 0?:
                log.add(.structure, at: path, "the form \"\(form)\" has no input rows to check")
            default:
                break
            }
        }
    }
}
