/// What ids a row definition can give: one fixed id, or `prefix{{item.id}}suffix` per item.
private enum RowIDPattern {
    case fixed(String)
    case repeated(prefix: String, suffix: String, list: String)

    /// Whether two patterns can give the same id. Item ids are unique and non-empty within
    /// a list, so one pattern never collides with itself; two patterns collide when a common
    /// string can match both.
    func mayCollide(with other: RowIDPattern) -> Bool {
        switch (self, other) {
        case (.fixed(let a), .fixed(let b)):
            return a == b
        case (.fixed(let id), .repeated(let prefix, let suffix, _)), (.repeated(let prefix, let suffix, _), .fixed(let id)):
            return id.count > prefix.count + suffix.count && id.hasPrefix(prefix) && id.hasSuffix(suffix)
        case (.repeated(let p1, let s1, let l1), .repeated(let p2, let s2, let l2)):
            if l1 == l2 && p1 == p2 && s1 == s2 { return true }
            let prefixesOverlap = p1.hasPrefix(p2) || p2.hasPrefix(p1)
            let suffixesOverlap = s1.hasSuffix(s2) || s2.hasSuffix(s1)
            return prefixesOverlap && suffixesOverlap
        }
    }

    var text: String {
        switch self {
        case .fixed(let id): "\"\(id)\""
        case .repeated(let prefix, let suffix, let list): "\"\(prefix){{item.id}}\(suffix)\" (over \(list))"
        }
    }
}

extension DefinitionReader {
    /// Section ids must be unique; row ids unique across the screen, including every id a
    /// `forEach` row can produce.
    mutating func checkIdentity(_ sections: [SectionDefinition]) {
        var sectionIndexByID: [String: Int] = [:]
        for (index, section) in sections.enumerated() {
            if let first = sectionIndexByID[section.id] {
                log.add(
                    .duplicateSectionID, at: "$.sections[\(index)].id",
                    "section id \"\(section.id)\" is already used by $.sections[\(first)]; section ids must be unique")
            } else {
                sectionIndexByID[section.id] = index
            }
        }
        var fixedPaths: [String: String] = [:]
        var patterns: [(pattern: RowIDPattern, path: String)] = []
        for row in sections.flatMap(\.rows) {
            let idPath = row.path + ".id"
            if let list = row.forEach, let affixes = row.id.singleExpressionAffixes {
                let pattern = RowIDPattern.repeated(prefix: affixes.prefix, suffix: affixes.suffix, list: list)
                if let clash = patterns.first(where: { $0.pattern.mayCollide(with: pattern) }) {
                    log.add(
                        .duplicateRowID, at: idPath,
                        "ids \(pattern.text) can be the same as ids \(clash.pattern.text) of \(clash.path); make the text around {{item.id}} differ")
                } else if let clash = fixedPaths.first(where: { RowIDPattern.fixed($0.key).mayCollide(with: pattern) }) {
                    log.add(
                        .duplicateRowID, at: idPath, "an item can give id \"\(clash.key)\", which \(clash.value) uses; make the text around {{item.id}} differ")
                }
                patterns.append((pattern, idPath))
            } else {
                let id = row.id.source
                if let first = fixedPaths[id] {
                    log.add(.duplicateRowID, at: idPath, "row id \"\(id)\" is already used by \(first); row ids must be unique across the screen")
                } else if let clash = patterns.first(where: { $0.pattern.mayCollide(with: .fixed(id)) }) {
                    log.add(.duplicateRowID, at: idPath, "an item of \(clash.pattern.text) at \(clash.path) can give the id \"\(id)\"; rename one")
                } else {
                    fixedPaths[id] = idPath
                }
            }
        }
    }
}
