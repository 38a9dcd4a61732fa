/// The state keys each part of a screen reads, as bit masks: deciding what an event's
/// changed keys leave untouched then costs an AND per part instead of a set lookup (which
/// hashes a string) per part.
///
/// Each key a part reads gets a bit of its own, up to 63 keys a screen; the keys beyond share
/// the last bit, which can only make a part re-render more often, never less.
struct DependencyMasks: Sendable {
    struct SectionMasks: Sendable {
        /// Everything the section reads: its visibility, header, footer and rows.
        let section: UInt64
        let header: UInt64
        let footer: UInt64
        /// One per row definition, in declared order.
        let rows: [UInt64]
        /// One per row definition: what its rows' content reads (all but what only its
        /// `forEach` selection reads).
        let rowContent: [UInt64]
        /// What decides which rows the section has and in which order: the rows'
        /// `visibleWhen`, `forEach` lists and ids.
        let rowStructure: UInt64
    }

    let title: UInt64
    /// One per section definition, in declared order.
    let sections: [SectionMasks]
    private let bitByKey: [String: UInt64]

    private static let sharedBit: UInt64 = 1 << 63

    /// What stands for the session's form marks among the keys: rows with rules read them.
    private static let marksKey = "$form"

    /// On an item screen (`item` is its list), every part may read the item: a change of the
    /// list renders all of it again.
    init(title: Template, sections: [SectionDefinition], item: String? = nil) {
        var bitByKey: [String: UInt64] = [:]
        func mask(_ keys: Set<String>) -> UInt64 {
            var bits: UInt64 = 0
            for key in keys {
                if let bit = bitByKey[key] {
                    bits |= bit
                } else {
                    let bit = bitByKey.count < 63 ? UInt64(1) << UInt64(bitByKey.count) : Self.sharedBit
                    bitByKey[key] = bit
                    bits |= bit
                }
            }
            return bits
        }
        // An input row also reads the form marks (its error shows once touched, or once the
        // backend named one) and, through `equals`, what the other row's value reads.
        var fixedRows: [String: RowDefinition] = [:]
        for row in sections.flatMap(\.rows) where row.forEach == nil {
            fixedRows[row.id.evaluate(EvaluationContext(state: SessionState()))] = row
        }
        // `valid('FORM')` reads what every row of the form reads, and the marks; a row of the
        // form may itself read another form's validity (a `when` rule, an `enabledWhen`), and
        // so on, so what each form reads is closed over those.
        var formReads: [String: Set<String>] = [:]
        for section in sections {
            guard let form = section.form else { continue }
            var keys = formReads[ExpressionNode.formValidityKey(form), default: [Self.marksKey]]
            for row in section.rows {
                keys.formUnion(row.dependencies)
                for target in row.equalsTargets { keys.formUnion(fixedRows[target]?.dependencies ?? []) }
            }
            if let visibleWhen = section.visibleWhen { keys.formUnion(visibleWhen.stateKeys) }
            formReads[ExpressionNode.formValidityKey(form)] = keys
        }
        var formKeys: [String: Set<String>] = [:]
        for form in formReads.keys {
            var keys: Set<String> = [Self.marksKey]
            var pending = [form]
            var seen: Set<String> = []
            while let next = pending.popLast() {
                guard seen.insert(next).inserted else { continue }
                for key in formReads[next] ?? [] {
                    if !key.hasPrefix("$") {
                        keys.insert(key)
                    } else if formReads[key] != nil {
                        pending.append(key)
                    }
                }
            }
            formKeys[form] = keys
        }
        func expanded(_ keys: Set<String>) -> Set<String> {
            var result = keys
            for key in keys where key.hasPrefix("$") {
                result.remove(key)
                result.formUnion(formKeys[key] ?? [Self.marksKey])
            }
            return result
        }
        let itemKeys: Set<String> = item.map { [$0] } ?? []
        func rowMask(_ row: RowDefinition, content: Bool = false) -> UInt64 {
            var keys = expanded(content ? row.contentDependencies : row.dependencies).union(itemKeys)
            // Any input row may show an error the backend named.
            if row.isInput { keys.insert(Self.marksKey) }
            for target in row.equalsTargets { keys.formUnion(expanded(fixedRows[target]?.dependencies ?? [])) }
            return mask(keys)
        }
        self.title = mask(expanded(title.stateKeys).union(itemKeys))
        self.sections = sections.map { section in
            let rows = section.rows.map { rowMask($0) }
            return SectionMasks(
                section: mask(expanded(section.dependencies).union(itemKeys)) | rows.reduce(0, |),
                header: mask(expanded(section.headerDependencies).union(itemKeys)),
                footer: mask(expanded(section.footerDependencies).union(itemKeys)), rows: rows,
                rowContent: section.rows.map { rowMask($0, content: true) },
                rowStructure: section.rows.reduce(0) { $0 | mask(expanded($1.structureDependencies).union(itemKeys)) })
        }
        self.bitByKey = bitByKey
    }

    /// The bits of the keys whose values differ between the two states; a key no part
    /// reads has no bit.
    func changed(_ state: SessionState, since previous: SessionState) -> UInt64 {
        var changed: UInt64 = 0
        state.forEachChangedKey(since: previous) { changed |= bitByKey[$0] ?? 0 }
        if state.marks != previous.marks { changed |= bitByKey[Self.marksKey] ?? 0 }
        return changed
    }

    /// The bits of the keys listed, and of the form marks when they changed.
    func changed(_ keys: [String], marksChanged: Bool) -> UInt64 {
        var changed: UInt64 = marksChanged ? bitByKey[Self.marksKey] ?? 0 : 0
        for key in keys { changed |= bitByKey[key] ?? 0 }
        return changed
    }
}
