/// Computes the change set that turns `old` into `new`.
///
/// Sections and rows are matched by `id` (rows across the whole screen), never by
/// position. Kept items that keep their relative order are not reported as moved: only
/// those outside a longest increasing subsequence of kept items are, plus rows that change
/// section. Runs in O(n log n) in the number of rows and sections, linear in practice
/// (hash matching, then a longest increasing subsequence with an ascending fast path).
///
/// The result follows the index rules documented on ``ChangeSet``; `diff(a, a)` is empty
/// and `diff(a, b).apply(to: a) == b` for screens with equal revisions and definitions (the
/// revision and the definition id are not content: answers carry them beside the change
/// set, as `toRevision` and `definition`). The two screens may come from different
/// definitions: a client's copy made by an earlier one is brought to the current one.
public func diff(old: Screen, new: Screen) -> ChangeSet {
    var changes = ChangeSet()
    if old.title != new.title { changes.title = new.title }
    if old.style != new.style { changes.style = StyleChange(new.style) }

    if sameIdentities(old, new) {
        diffContent(old: old, new: new, into: &changes)
        return changes
    }
    let sectionMatch = IdentityMatch(old: old.sections.map(\.id), new: new.sections.map(\.id))
    diffSections(old: old, new: new, match: sectionMatch, into: &changes.sections)
    diffRows(old: old, new: new, sectionMatch: sectionMatch, into: &changes.rows)
    return changes
}

/// Whether both screens have the same section and row ids in the same places: then
/// nothing was inserted, deleted or moved, which is what most events do.
private func sameIdentities(_ old: Screen, _ new: Screen) -> Bool {
    old.sections.withUnsafeBufferPointer { oldSections in
        new.sections.withUnsafeBufferPointer { newSections in
            guard oldSections.count == newSections.count else { return false }
            guard let oldBase = oldSections.baseAddress, let newBase = newSections.baseAddress else { return true }
            for index in oldSections.indices {
                let oldSection = oldBase + index, newSection = newBase + index
                guard InPlaceEquality.sectionIDs(oldSection, newSection) else { return false }
                let sameRows = oldSection.pointee.rows.withUnsafeBufferPointer { oldRows in
                    newSection.pointee.rows.withUnsafeBufferPointer { newRows in
                        guard oldRows.count == newRows.count else { return false }
                        guard let oldRow = oldRows.baseAddress, let newRow = newRows.baseAddress, oldRow != newRow else { return true }
                        return oldRows.indices.allSatisfy { InPlaceEquality.rowIDs(oldRow + $0, newRow + $0) }
                    }
                }
                guard sameRows else { return false }
            }
            return true
        }
    }
}

/// The changes between two screens of the same identities: updates only, in O(n) with no hashing.
/// Rows that share their storage (a section the incremental render took over) are not compared.
private func diffContent(old: Screen, new: Screen, into changes: inout ChangeSet) {
    old.sections.withUnsafeBufferPointer { oldSections in
        new.sections.withUnsafeBufferPointer { newSections in
            guard let oldBase = oldSections.baseAddress, let newBase = newSections.baseAddress else { return }
            for sectionIndex in newSections.indices {
                let oldSection = oldBase + sectionIndex, newSection = newBase + sectionIndex
                if !InPlaceEquality.headersAndFooters(oldSection, newSection) {
                    changes.sections.updated.append(SectionUpdate(
                        from: sectionIndex, to: sectionIndex, header: newSection.pointee.header, footer: newSection.pointee.footer))
                }
                oldSection.pointee.rows.withUnsafeBufferPointer { oldRows in
                    newSection.pointee.rows.withUnsafeBufferPointer { newRows in
                        guard oldRows.baseAddress != newRows.baseAddress else { return }
                        for rowIndex in newRows.indices where !sameRow(oldRows, rowIndex, newRows, rowIndex) {
                            let path = RowPath(section: sectionIndex, row: rowIndex)
                            if oldRows[rowIndex].kind == newRows[rowIndex].kind {
                                changes.rows.updated.append(RowUpdate(from: path, to: path, row: newRows[rowIndex]))
                            } else {
                                // Another kind is another cell: it is replaced, not reconfigured.
                                changes.rows.deleted.append(path)
                                changes.rows.inserted.append(RowInsertion(path: path, row: newRows[rowIndex]))
                            }
                        }
                    }
                }
            }
        }
    }
}

private func diffSections(old: Screen, new: Screen, match: IdentityMatch, into changes: inout ChangeSet.SectionChanges) {
    for (oldIndex, newIndex) in match.oldToNew.enumerated() where newIndex < 0 {
        changes.deleted.append(oldIndex)
    }
    var keptNewIndexes: [Int] = []
    var keptOldIndexes: [Int] = []
    for (newIndex, oldIndex) in match.newToOld.enumerated() {
        if oldIndex < 0 {
            changes.inserted.append(SectionInsertion(index: newIndex, section: new.sections[newIndex]))
        } else {
            keptNewIndexes.append(newIndex)
            keptOldIndexes.append(oldIndex)
        }
    }
    let inOrder = longestIncreasingSubsequenceMask(keptOldIndexes)
    for position in keptNewIndexes.indices {
        let oldIndex = keptOldIndexes[position]
        let newIndex = keptNewIndexes[position]
        if !inOrder[position] {
            changes.moved.append(SectionMove(from: oldIndex, to: newIndex))
        }
        let sameHeaders = old.sections.withUnsafeBufferPointer { oldSections in
            new.sections.withUnsafeBufferPointer { newSections in
                guard let oldBase = oldSections.baseAddress, let newBase = newSections.baseAddress else { return false }
                return InPlaceEquality.headersAndFooters(oldBase + oldIndex, newBase + newIndex)
            }
        }
        if !sameHeaders {
            let newSection = new.sections[newIndex]
            changes.updated.append(SectionUpdate(from: oldIndex, to: newIndex, header: newSection.header, footer: newSection.footer))
        }
    }
}

/// Rows of both screens flattened, with each row's section and index within it.
private struct FlatRows {
    var ids: [String] = []
    var section: [Int] = []
    var row: [Int] = []
    /// Index of each section's first row in the flat arrays.
    var sectionStart: [Int] = []

    init(_ screen: Screen) {
        let count = screen.rowCount
        ids.reserveCapacity(count)
        section.reserveCapacity(count)
        row.reserveCapacity(count)
        for sectionIndex in screen.sections.indices {
            sectionStart.append(ids.count)
            screen.sections[sectionIndex].rows.withUnsafeBufferPointer { rows in
                for rowIndex in rows.indices {
                    ids.append(rows[rowIndex].id)
                    self.section.append(sectionIndex)
                    self.row.append(rowIndex)
                }
            }
        }
    }
}

private func diffRows(old: Screen, new: Screen, sectionMatch: IdentityMatch, into changes: inout ChangeSet.RowChanges) {
    let oldRows = FlatRows(old)
    let newRows = FlatRows(new)
    let match = IdentityMatch(old: oldRows.ids, new: newRows.ids)
    var oldRowKept = [Bool](repeating: false, count: oldRows.ids.count)

    // Scratch buffers reused for every section.
    var keptFlatIndexes: [Int] = []
    var sameSectionOldRows: [Int] = []
    var sameSectionPositions: [Int] = []

    for (newSectionIndex, newSection) in new.sections.enumerated() {
        // An inserted section carries its rows; they are not listed on their own.
        guard sectionMatch.newToOld[newSectionIndex] >= 0 else { continue }
        let firstFlat = newRows.sectionStart[newSectionIndex]
        keptFlatIndexes.removeAll(keepingCapacity: true)
        sameSectionOldRows.removeAll(keepingCapacity: true)
        sameSectionPositions.removeAll(keepingCapacity: true)

        for rowIndex in newSection.rows.indices {
            let oldFlat = match.newToOld[firstFlat + rowIndex]
            // A row whose old section was deleted travels with it: it is inserted here. A row
            // whose kind changed (a new version of the definition) is another cell: it is
            // deleted and inserted.
            if oldFlat >= 0 && sectionMatch.oldToNew[oldRows.section[oldFlat]] >= 0
                && old.sections[oldRows.section[oldFlat]].rows[oldRows.row[oldFlat]].kind == newSection.rows[rowIndex].kind
            {
                oldRowKept[oldFlat] = true
                keptFlatIndexes.append(oldFlat)
                if sectionMatch.oldToNew[oldRows.section[oldFlat]] == newSectionIndex {
                    sameSectionOldRows.append(oldRows.row[oldFlat])
                    sameSectionPositions.append(rowIndex)
                }
            } else {
                keptFlatIndexes.append(-1)
            }
        }

        var movedWithinSection = [Bool](repeating: false, count: newSection.rows.count)
        let inOrder = longestIncreasingSubsequenceMask(sameSectionOldRows)
        for (position, rowIndex) in sameSectionPositions.enumerated() where !inOrder[position] {
            movedWithinSection[rowIndex] = true
        }

        // Rows are compared where they lie (through buffers): copying each one to compare
        // it was a quarter of the diff's time.
        newSection.rows.withUnsafeBufferPointer { newRowBuffer in
            for rowIndex in newRowBuffer.indices {
                let to = RowPath(section: newSectionIndex, row: rowIndex)
                let oldFlat = keptFlatIndexes[rowIndex]
                guard oldFlat >= 0 else {
                    changes.inserted.append(RowInsertion(path: to, row: newRowBuffer[rowIndex]))
                    continue
                }
                let from = RowPath(section: oldRows.section[oldFlat], row: oldRows.row[oldFlat])
                let changedSection = sectionMatch.oldToNew[from.section] != newSectionIndex
                if changedSection || movedWithinSection[rowIndex] {
                    changes.moved.append(RowMove(from: from, to: to))
                }
                let changed = old.sections[from.section].rows.withUnsafeBufferPointer { !sameRow($0, from.row, newRowBuffer, rowIndex) }
                if changed {
                    changes.updated.append(RowUpdate(from: from, to: to, row: newRowBuffer[rowIndex]))
                }
            }
        }
    }

    // Rows of kept old sections that found no place in a kept new section.
    for (oldSectionIndex, section) in old.sections.enumerated() where sectionMatch.oldToNew[oldSectionIndex] >= 0 {
        let firstFlat = oldRows.sectionStart[oldSectionIndex]
        for rowIndex in section.rows.indices where !oldRowKept[firstFlat + rowIndex] {
            changes.deleted.append(RowPath(section: oldSectionIndex, row: rowIndex))
        }
    }
}

/// `old[oldIndex] == new[newIndex]`, reading each field where the rows lie.
private func sameRow(_ old: UnsafeBufferPointer<Row>, _ oldIndex: Int, _ new: UnsafeBufferPointer<Row>, _ newIndex: Int) -> Bool {
    guard let oldBase = old.baseAddress, let newBase = new.baseAddress else { return old[oldIndex] == new[newIndex] }
    return InPlaceEquality.rows(oldBase + oldIndex, newBase + newIndex)
}
