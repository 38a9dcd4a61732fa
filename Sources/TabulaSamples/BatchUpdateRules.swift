import TabulaCore

/// The rules a change set from `old` to `new` must follow for a client to hand it to one
/// `UITableView.performBatchUpdates` (the index rules documented on ``ChangeSet``),
/// checked apart from the diff and from `apply`: the core has no such validator, and a
/// change set can apply correctly yet still make a table view throw. Used by the tests and
/// the fuzzers.
public struct BatchUpdateRules {
    private let changes: ChangeSet
    private let old: Screen
    private let new: Screen
    /// Whether both screens have unique ids. With a repeated id, which copy counts as kept
    /// is the diff's choice, so "moved, never deleted and inserted" is checked only without.
    private let keepsIdentityRules: Bool
    private var problems: [String] = []

    /// Every broken rule, described; empty when a table view would accept the change set.
    public static func violations(of changes: ChangeSet, from old: Screen, to new: Screen) -> [String] {
        var rules = BatchUpdateRules(changes: changes, old: old, new: new)
        guard let sectionMap = rules.checkSections() else { return rules.problems }
        rules.checkRows(sectionMap)
        return rules.problems
    }

    private init(changes: ChangeSet, old: Screen, new: Screen) {
        self.changes = changes
        self.old = old
        self.new = new
        keepsIdentityRules = hasUniqueIDs(old) && hasUniqueIDs(new)
    }

    private mutating func report(_ problem: String) {
        problems.append(problem)
    }

    /// Checks section deletions, insertions, moves and updates; returns each kept new
    /// section's old index, or `nil` when the sections do not even pair up.
    private mutating func checkSections() -> [Int: Int]? {
        let sections = changes.sections
        let deleted = Set(sections.deleted)
        let inserted = Set(sections.inserted.map(\.index))
        if !isStrictlyAscending(sections.deleted) { report("section deletions are not strictly ascending: \(sections.deleted)") }
        if !isStrictlyAscending(sections.inserted.map(\.index)) { report("section insertions are not strictly ascending") }
        if !isStrictlyAscending(sections.moved.map(\.to)) { report("section moves are not strictly ascending by new index") }
        if !isStrictlyAscending(sections.updated.map(\.to)) { report("section updates are not strictly ascending by new index") }
        for index in sections.deleted where !old.sections.indices.contains(index) {
            report("deleted section \(index) is not in the old screen")
        }
        for insertion in sections.inserted {
            if !new.sections.indices.contains(insertion.index) {
                report("inserted section \(insertion.index) is not in the new screen")
            } else if new.sections[insertion.index] != insertion.section {
                report("inserted section \(insertion.index) is not the new screen's section there")
            }
        }
        let deletedIDs = Set(sections.deleted.compactMap { old.sections.indices.contains($0) ? old.sections[$0].id : nil })
        for insertion in sections.inserted where keepsIdentityRules && deletedIDs.contains(insertion.section.id) {
            report("section \"\(insertion.section.id)\" is both deleted and inserted instead of moved")
        }
        let movedFrom = Set(sections.moved.map(\.from))
        let movedTo = Set(sections.moved.map(\.to))
        if movedFrom.count != sections.moved.count { report("a section is moved twice") }
        var newToOld: [Int: Int] = [:]
        for move in sections.moved {
            guard old.sections.indices.contains(move.from), new.sections.indices.contains(move.to) else {
                report("section move \(move.from) -> \(move.to) is out of range")
                continue
            }
            if deleted.contains(move.from) { report("section \(move.from) is both deleted and moved") }
            if inserted.contains(move.to) { report("section \(move.to) is both inserted and a move's target") }
            if old.sections[move.from].id != new.sections[move.to].id { report("section move \(move.from) -> \(move.to) changes the section's id") }
            newToOld[move.to] = move.from
        }
        if new.sections.count != old.sections.count - sections.deleted.count + sections.inserted.count {
            report("section count \(new.sections.count) != \(old.sections.count) - \(sections.deleted.count) deleted + \(sections.inserted.count) inserted")
        }
        // Sections neither removed nor added keep their relative order; they pair up by position.
        let stayingOld = old.sections.indices.filter { !deleted.contains($0) && !movedFrom.contains($0) }
        let stayingNew = new.sections.indices.filter { !inserted.contains($0) && !movedTo.contains($0) }
        guard stayingOld.count == stayingNew.count else {
            report("\(stayingOld.count) old sections stay in place but \(stayingNew.count) new ones do")
            return nil
        }
        for (oldIndex, newIndex) in zip(stayingOld, stayingNew) {
            if old.sections[oldIndex].id != new.sections[newIndex].id {
                report("old section \(oldIndex) stays in place as new section \(newIndex) but their ids differ")
            }
            newToOld[newIndex] = oldIndex
        }
        for update in sections.updated {
            guard new.sections.indices.contains(update.to), newToOld[update.to] == update.from else {
                report("section update \(update.from) -> \(update.to) does not follow a kept section")
                continue
            }
            let section = new.sections[update.to]
            if section.header != update.header || section.footer != update.footer {
                report("section update at \(update.to) does not carry the new header and footer")
            }
        }
        return newToOld
    }

    /// Checks row deletions, insertions, moves and updates, and that each kept section's
    /// row count adds up the way a table view counts it.
    private mutating func checkRows(_ sectionNewToOld: [Int: Int]) {
        let rows = changes.rows
        let deletedSections = Set(changes.sections.deleted)
        let insertedSections = Set(changes.sections.inserted.map(\.index))
        let deleted = Set(rows.deleted)
        let inserted = Set(rows.inserted.map(\.path))
        if !isStrictlyAscending(rows.deleted) { report("row deletions are not strictly ascending") }
        if !isStrictlyAscending(rows.inserted.map(\.path)) { report("row insertions are not strictly ascending") }
        if !isStrictlyAscending(rows.moved.map(\.to)) { report("row moves are not strictly ascending by new path") }
        if !isStrictlyAscending(rows.updated.map(\.to)) { report("row updates are not strictly ascending by new path") }
        for path in rows.deleted {
            if old.row(at: path) == nil { report("deleted row \(path) is not in the old screen") }
            if deletedSections.contains(path.section) { report("deleted row \(path) is in a deleted section") }
        }
        for insertion in rows.inserted {
            if new.row(at: insertion.path) != insertion.row { report("inserted row \(insertion.path) is not the new screen's row there") }
            if insertedSections.contains(insertion.path.section) { report("inserted row \(insertion.path) is in an inserted section") }
        }
        var newToOld: [RowPath: RowPath] = [:]
        if Set(rows.moved.map(\.from)).count != rows.moved.count { report("a row is moved twice") }
        for move in rows.moved {
            guard let from = old.row(at: move.from), let to = new.row(at: move.to) else {
                report("row move \(move.from) -> \(move.to) is out of range")
                continue
            }
            if from.id != to.id { report("row move \(move.from) -> \(move.to) changes the row's id") }
            if deleted.contains(move.from) { report("row \(move.from) is both deleted and moved") }
            if inserted.contains(move.to) { report("row \(move.to) is both inserted and a move's target") }
            if deletedSections.contains(move.from.section) { report("row move from \(move.from) leaves a deleted section") }
            if insertedSections.contains(move.to.section) { report("row move to \(move.to) enters an inserted section") }
            newToOld[move.to] = move.from
        }
        let movedFrom = Set(rows.moved.map(\.from))
        let movedTo = Set(rows.moved.map(\.to))
        for (newSection, oldSection) in sectionNewToOld.sorted(by: { $0.key < $1.key }) {
            let oldRows = old.sections[oldSection].rows
            let newRows = new.sections[newSection].rows
            let stayingOld = oldRows.indices.filter {
                let path = RowPath(section: oldSection, row: $0)
                return !deleted.contains(path) && !movedFrom.contains(path)
            }
            let stayingNew = newRows.indices.filter {
                let path = RowPath(section: newSection, row: $0)
                return !inserted.contains(path) && !movedTo.contains(path)
            }
            guard stayingOld.count == stayingNew.count else {
                report(
                    "section \(oldSection) -> \(newSection): \(stayingOld.count) old rows stay but \(stayingNew.count) new rows do (row counts do not add up)")
                continue
            }
            for (oldRow, newRow) in zip(stayingOld, stayingNew) {
                if oldRows[oldRow].id != newRows[newRow].id {
                    report("row [\(oldSection), \(oldRow)] stays in place as [\(newSection), \(newRow)] but their ids differ")
                }
                newToOld[RowPath(section: newSection, row: newRow)] = RowPath(section: oldSection, row: oldRow)
            }
        }
        for update in rows.updated where newToOld[update.to] != update.from || new.row(at: update.to) != update.row {
            report("row update \(update.from) -> \(update.to) does not follow a kept row or carry its new model")
        }
        // Identity: a kept row is moved, never deleted and inserted; a row whose kind
        // changed is another cell, so it is deleted and inserted.
        guard keepsIdentityRules else { return }
        let deletedRows = Set(rows.deleted.compactMap { old.row(at: $0).map { [$0.id, $0.kind] } })
        for insertion in rows.inserted where deletedRows.contains([insertion.row.id, insertion.row.kind]) {
            report("row \"\(insertion.row.id)\" is both deleted and inserted instead of moved")
        }
    }
}

/// Whether section ids are unique and row ids unique across the screen.
private func hasUniqueIDs(_ screen: Screen) -> Bool {
    let rowIDs = screen.sections.flatMap { $0.rows.map(\.id) }
    return Set(screen.sections.map(\.id)).count == screen.sections.count && Set(rowIDs).count == rowIDs.count
}

private func isStrictlyAscending<Element: Comparable>(_ elements: [Element]) -> Bool {
    zip(elements, elements.dropFirst()).allSatisfy { $0 < $1 }
}
