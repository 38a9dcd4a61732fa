extension ChangeSet {
    /// Applies the change set to the screen it was computed against, following the index
    /// rules on ``ChangeSet``. `diff(old: a, new: b).apply(to: a) == b` when `a` and `b`
    /// have equal revisions and definitions; the result keeps `screen.revision` and
    /// `screen.definition` (answers carry the new ones beside the change set).
    ///
    /// A change set that does not fit `screen` (one computed against another screen) is
    /// not applied: the screen is returned unchanged. Use ``applyChecked(to:)`` to learn why.
    public func apply(to screen: Screen) -> Screen {
        (try? applyChecked(to: screen)) ?? screen
    }

    /// Applies the change set like ``apply(to:)``, throwing when it does not fit `screen`,
    /// or does not describe one consistent batch: a row or section deleted or moved twice
    /// (or both), an update that is not of a kept row or section or that changes a row's
    /// kind, a row inserted or moved into an inserted section, a result with repeated ids
    /// or that breaks the wire model's rules (``Screen/validate()``). A table view would
    /// refuse such a batch (its counts would not add up, or a cell reconfigured in place
    /// would need another kind), so a client that applies only what this accepts never
    /// hands it one.
    public func applyChecked(to screen: Screen) throws(ChangeSetError) -> Screen {
        var result = screen
        var sections = screen.sections.map(Optional.some)

        // 1. Remove deleted and moved-out rows, keeping the moved ones by their old path:
        //    each old row leaves once at most.
        var rowsToRemove: [Int: Set<Int>] = [:]
        for path in rows.deleted {
            try checkRow(path, in: screen, "deleted row")
            guard rowsToRemove[path.section, default: []].insert(path.row).inserted else {
                throw ChangeSetError("row \(path) is deleted twice")
            }
        }
        var movedRows: [RowPath: Row] = [:]
        for move in rows.moved {
            guard let row = screen.row(at: move.from) else {
                throw ChangeSetError("moved row \(move.from) is not in the screen")
            }
            guard rowsToRemove[move.from.section, default: []].insert(move.from.row).inserted else {
                throw ChangeSetError("moved row \(move.from) is also deleted or moved")
            }
            movedRows[move.from] = row
        }
        for (sectionIndex, removed) in rowsToRemove {
            guard let section = sections[sectionIndex] else { continue }
            var kept = section
            kept.rows = section.rows.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
            sections[sectionIndex] = kept
        }

        // 2. Remove deleted and moved-out sections (old indexes), each once at most.
        var movedSections: [Int: Section] = [:]
        for index in self.sections.deleted {
            guard screen.sections.indices.contains(index) else {
                throw ChangeSetError("deleted section \(index) is not in the screen")
            }
            if rowsToRemove[index] != nil { throw ChangeSetError("rows of deleted section \(index) are listed") }
            guard sections[index] != nil else { throw ChangeSetError("section \(index) is deleted twice") }
            sections[index] = nil
        }
        for move in self.sections.moved {
            guard screen.sections.indices.contains(move.from), let section = sections[move.from] else {
                throw ChangeSetError("moved section \(move.from) is not in the screen, or is also deleted or moved")
            }
            movedSections[move.from] = section
            sections[move.from] = nil
        }

        // 3. Insert new and moved sections at their new indexes, ascending.
        var sectionInsertions: [(index: Int, element: Section)] = self.sections.inserted.map { ($0.index, $0.section) }
        for move in self.sections.moved {
            if let section = movedSections[move.from] { sectionInsertions.append((move.to, section)) }
        }
        var newSections = try Self.merge(
            remaining: sections.compactMap { $0 }, insertions: sectionInsertions, what: "section")

        // 4. Insert new and moved rows at their new paths, ascending. An inserted section
        //    brings its rows: none is inserted or moved into it (a table view refuses that).
        var rowInsertions: [Int: [(index: Int, element: Row)]] = [:]
        for insertion in rows.inserted {
            rowInsertions[insertion.path.section, default: []].append((insertion.path.row, insertion.row))
        }
        for move in rows.moved {
            if let row = movedRows[move.from] {
                rowInsertions[move.to.section, default: []].append((move.to.row, row))
            }
        }
        let insertedSections = Set(self.sections.inserted.map(\.index))
        for (sectionIndex, insertions) in rowInsertions {
            guard newSections.indices.contains(sectionIndex) else {
                throw ChangeSetError("row inserted into section \(sectionIndex), which the new screen does not have")
            }
            guard !insertedSections.contains(sectionIndex) else {
                throw ChangeSetError("row inserted or moved into section \(sectionIndex), which is inserted with its rows")
            }
            newSections[sectionIndex].rows = try Self.merge(
                remaining: newSections[sectionIndex].rows, insertions: insertions, what: "row")
        }

        // 5. Set updated content at the new indexes: of a kept section or row, the one that
        //    was at `from` and is at `to` now. A row keeps its id and its kind, so that a
        //    client reconfigures its cell in place (another kind is a deletion and an insertion).
        let deletedSections = Set(self.sections.deleted)
        for update in self.sections.updated {
            guard newSections.indices.contains(update.to) else {
                throw ChangeSetError("updated section \(update.to) is not in the new screen")
            }
            guard screen.sections.indices.contains(update.from), !deletedSections.contains(update.from),
                screen.sections[update.from].id == newSections[update.to].id
            else {
                throw ChangeSetError("updated section \(update.to) is not the kept section \(update.from)")
            }
            newSections[update.to].header = update.header
            newSections[update.to].footer = update.footer
        }
        let deletedRows = Set(rows.deleted)
        for update in rows.updated {
            guard newSections.indices.contains(update.to.section),
                newSections[update.to.section].rows.indices.contains(update.to.row)
            else {
                throw ChangeSetError("updated row \(update.to) is not in the new screen")
            }
            guard let old = screen.row(at: update.from), old.id == update.row.id, !deletedRows.contains(update.from),
                newSections[update.to.section].rows[update.to.row].id == update.row.id
            else {
                throw ChangeSetError("updated row \(update.to) is not the kept row \(update.from)")
            }
            guard old.kind == update.row.kind else {
                throw ChangeSetError("updated row \(update.to) changes its kind from \(old.kind) to \(update.row.kind)")
            }
            newSections[update.to.section].rows[update.to.row] = update.row
        }

        result.sections = newSections
        if let title { result.title = title }
        if let style { result.style = style.style }
        // Insertions may repeat an id the screen keeps: identity is the id, so a screen that
        // held each id once still does. (One that did not, which only code can build, is
        // left to its maker.)
        if (try? screen.validate()) != nil {
            do {
                try result.validate()
            } catch {
                throw ChangeSetError("it leaves a screen that breaks the wire model's rules: \(error)")
            }
        }
        return result
    }

    private func checkRow(_ path: RowPath, in screen: Screen, _ what: String) throws(ChangeSetError) {
        guard screen.row(at: path) != nil else { throw ChangeSetError("\(what) \(path) is not in the screen") }
    }

    /// Builds the new list from the items that stayed (in order) and the items inserted at
    /// their final indexes, in O(n + k log k).
    private static func merge<Element>(
        remaining: [Element], insertions: [(index: Int, element: Element)], what: String
    ) throws(ChangeSetError) -> [Element] {
        guard !insertions.isEmpty else { return remaining }
        let sorted = insertions.sorted { $0.index < $1.index }
        let total = remaining.count + sorted.count
        var result: [Element] = []
        result.reserveCapacity(total)
        var remainingIndex = 0
        var insertionIndex = 0
        for position in 0..<total {
            if insertionIndex < sorted.count && sorted[insertionIndex].index == position {
                result.append(sorted[insertionIndex].element)
                insertionIndex += 1
            } else if remainingIndex < remaining.count {
                result.append(remaining[remainingIndex])
                remainingIndex += 1
            } else {
                throw ChangeSetError("\(what) inserted at \(sorted[insertionIndex].index) is past the end")
            }
        }
        guard insertionIndex == sorted.count else {
            throw ChangeSetError("\(what) inserted at \(sorted[insertionIndex].index) is past the end or repeated")
        }
        return result
    }
}
