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
///
/// `keeping` names a row the user just placed (a drop): among the change sets with the
/// fewest moves, one that leaves it where it is, when there is one. A change set never
/// has more moves for it.
public func diff(old: Screen, new: Screen, keeping pinnedRow: String? = nil) -> ChangeSet {
    var changes = ChangeSet()
    if old.title != new.title { changes.title = new.title }
    if old.style != new.style { changes.style = StyleChange(new.style) }

    if InPlaceEquality.sameIdentities(old.sections, new.sections) {
        diffContent(old: old, new: new, into: &changes)
        return changes
    }
    let sectionMatch = IdentityMatch(old: old.sections.map(\.id), new: new.sections.map(\.id))
    diffSections(old: old, new: new, match: sectionMatch, into: &changes.sections)
    diffRows(old: old, new: new, sectionMatch: sectionMatch, pinnedRow: pinnedRow, into: &changes.rows)
    return changes
}

/// The changes between two screens of the same identities: updates only, in O(n) with no hashing.
/// Rows that share their storage (a section the incremental render took over) are not compared.
private func diffContent(old: Screen, new: Screen, into changes: inout ChangeSet) {
    for sectionIndex in new.sections.indices {
        if !InPlaceEquality.sameHeadersAndFooters(old.sections, sectionIndex, new.sections, sectionIndex) {
            let newSection = new.sections[sectionIndex]
            changes.sections.updated.append(SectionUpdate(from: sectionIndex, to: sectionIndex, header: newSection.header, footer: newSection.footer))
        }
        InPlaceEquality.forEachChangedRow(old.sections, new.sections, inSection: sectionIndex) { rowIndex in
            let path = RowPath(section: sectionIndex, row: rowIndex)
            let newRow = new.sections[sectionIndex].rows[rowIndex]
            if old.sections[sectionIndex].rows[rowIndex].kind == newRow.kind {
                changes.rows.updated.append(RowUpdate(from: path, to: path, row: newRow))
            } else {
                // Another kind is another cell: it is replaced, not reconfigured.
                changes.rows.deleted.append(path)
                changes.rows.inserted.append(RowInsertion(path: path, row: newRow))
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
        if !InPlaceEquality.sameHeadersAndFooters(old.sections, oldIndex, new.sections, newIndex) {
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
            for rowIndex in screen.sections[sectionIndex].rows.indices {
                ids.append(screen.sections[sectionIndex].rows[rowIndex].id)
                self.section.append(sectionIndex)
                self.row.append(rowIndex)
            }
        }
    }
}

private func diffRows(
    old: Screen, new: Screen, sectionMatch: IdentityMatch, pinnedRow: String?, into changes: inout ChangeSet.RowChanges
) {
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
        var pinnedPosition = -1

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
                    if let pinnedRow, newSection.rows[rowIndex].id == pinnedRow { pinnedPosition = sameSectionOldRows.count }
                    sameSectionOldRows.append(oldRows.row[oldFlat])
                    sameSectionPositions.append(rowIndex)
                }
            } else {
                keptFlatIndexes.append(-1)
            }
        }

        var movedWithinSection = [Bool](repeating: false, count: newSection.rows.count)
        let inOrder =
            pinnedPosition < 0
            ? longestIncreasingSubsequenceMask(sameSectionOldRows)
            : longestIncreasingSubsequenceMask(sameSectionOldRows, pinning: pinnedPosition)
        for (position, rowIndex) in sameSectionPositions.enumerated() where !inOrder[position] {
            movedWithinSection[rowIndex] = true
        }

        for rowIndex in newSection.rows.indices {
            let to = RowPath(section: newSectionIndex, row: rowIndex)
            let oldFlat = keptFlatIndexes[rowIndex]
            guard oldFlat >= 0 else {
                changes.inserted.append(RowInsertion(path: to, row: newSection.rows[rowIndex]))
                continue
            }
            let from = RowPath(section: oldRows.section[oldFlat], row: oldRows.row[oldFlat])
            let changedSection = sectionMatch.oldToNew[from.section] != newSectionIndex
            if changedSection || movedWithinSection[rowIndex] {
                changes.moved.append(RowMove(from: from, to: to))
            }
            if !InPlaceEquality.sameRow(old.sections, from, new.sections, to) {
                changes.updated.append(RowUpdate(from: from, to: to, row: newSection.rows[rowIndex]))
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
