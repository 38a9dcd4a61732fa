/// Equality of wire-model values where they lie in memory, without copying them.
///
/// `==` on a value read from an array or a pointer copies it out first: every string and
/// dictionary it holds is retained, then released, a large share of the diff's time.
/// Values with identical bytes are equal (the same string or dictionary storage, the same
/// small-string bytes, the same flags and numbers), so identical bytes answer at once and
/// only values whose bytes differ are copied and compared with `==`. Different bytes say
/// nothing on their own: unused payload bytes of an enum may differ between equal values.
///
/// The diff asks its questions of whole section arrays and index paths; the pointers stay in
/// this file. `Scripts/bench-core` prints the diff's time, the figure that keeps this file.
enum InPlaceEquality {
    /// Whether both screens' sections have the same section ids and row ids in the same
    /// places: then nothing was inserted, deleted or moved, which is what most events do.
    static func sameIdentities(_ old: [Section], _ new: [Section]) -> Bool {
        old.withUnsafeBufferPointer { oldSections in
            new.withUnsafeBufferPointer { newSections in
                guard oldSections.count == newSections.count else { return false }
                guard let oldBase = oldSections.baseAddress, let newBase = newSections.baseAddress else { return true }
                for index in oldSections.indices {
                    let oldSection = oldBase + index, newSection = newBase + index
                    guard sectionIDs(oldSection, newSection) else { return false }
                    let sameRows = oldSection.pointee.rows.withUnsafeBufferPointer { oldRows in
                        newSection.pointee.rows.withUnsafeBufferPointer { newRows in
                            guard oldRows.count == newRows.count else { return false }
                            guard let oldRow = oldRows.baseAddress, let newRow = newRows.baseAddress, oldRow != newRow else { return true }
                            return oldRows.indices.allSatisfy { rowIDs(oldRow + $0, newRow + $0) }
                        }
                    }
                    guard sameRows else { return false }
                }
                return true
            }
        }
    }

    /// Whether `old[oldIndex]` and `new[newIndex]` have equal headers and footers.
    static func sameHeadersAndFooters(_ old: [Section], _ oldIndex: Int, _ new: [Section], _ newIndex: Int) -> Bool {
        old.withUnsafeBufferPointer { oldSections in
            new.withUnsafeBufferPointer { newSections in
                guard let oldBase = oldSections.baseAddress, let newBase = newSections.baseAddress else {
                    return oldSections[oldIndex].header == newSections[newIndex].header && oldSections[oldIndex].footer == newSections[newIndex].footer
                }
                return headersAndFooters(oldBase + oldIndex, newBase + newIndex)
            }
        }
    }

    /// Calls `body` with the index of each row of section `sectionIndex` that differs between
    /// `old` and `new`, which have the same rows there (``sameIdentities(_:_:)``). Rows that
    /// share their storage (a section the incremental render took over) are not compared.
    static func forEachChangedRow(_ old: [Section], _ new: [Section], inSection sectionIndex: Int, _ body: (Int) -> Void) {
        old.withUnsafeBufferPointer { oldSections in
            new.withUnsafeBufferPointer { newSections in
                oldSections[sectionIndex].rows.withUnsafeBufferPointer { oldRows in
                    newSections[sectionIndex].rows.withUnsafeBufferPointer { newRows in
                        guard let oldBase = oldRows.baseAddress, let newBase = newRows.baseAddress, oldBase != newBase else { return }
                        for rowIndex in newRows.indices where !rows(oldBase + rowIndex, newBase + rowIndex) {
                            body(rowIndex)
                        }
                    }
                }
            }
        }
    }

    /// Whether the row at `from` in `old` equals the row at `to` in `new`.
    static func sameRow(_ old: [Section], _ from: RowPath, _ new: [Section], _ to: RowPath) -> Bool {
        old.withUnsafeBufferPointer { oldSections in
            new.withUnsafeBufferPointer { newSections in
                oldSections[from.section].rows.withUnsafeBufferPointer { oldRows in
                    newSections[to.section].rows.withUnsafeBufferPointer { newRows in
                        guard let oldBase = oldRows.baseAddress, let newBase = newRows.baseAddress else { return oldRows[from.row] == newRows[to.row] }
                        return rows(oldBase + from.row, newBase + to.row)
                    }
                }
            }
        }
    }

    /// `a.pointee == b.pointee`, reading each field where it lies. Compares every stored
    /// property of `Row` (a test keeps the count).
    private static func rows(_ a: UnsafePointer<Row>, _ b: UnsafePointer<Row>) -> Bool {
        guard a.pointee.selectable == b.pointee.selectable, a.pointee.deletable == b.pointee.deletable,
            a.pointee.enabled == b.pointee.enabled, a.pointee.editable == b.pointee.editable,
            a.pointee.accessory == b.pointee.accessory, a.pointee.height == b.pointee.height,
            a.pointee.estimatedHeight == b.pointee.estimatedHeight, a.pointee.movable == b.pointee.movable
        else { return false }
        guard let layout = RowLayout.offsets else { return a.pointee == b.pointee }
        return values(field(a, layout.id, String.self), field(b, layout.id, String.self))
            && values(field(a, layout.content, RowContent.self), field(b, layout.content, RowContent.self))
            && values(field(a, layout.error, String?.self), field(b, layout.error, String?.self))
            && values(field(a, layout.leadingActions, [SwipeAction].self), field(b, layout.leadingActions, [SwipeAction].self))
            && values(field(a, layout.trailingActions, [SwipeAction].self), field(b, layout.trailingActions, [SwipeAction].self))
            && values(field(a, layout.accessibility, RowAccessibility.self), field(b, layout.accessibility, RowAccessibility.self))
    }

    /// Whether two rows in memory have the same id.
    private static func rowIDs(_ a: UnsafePointer<Row>, _ b: UnsafePointer<Row>) -> Bool {
        guard let layout = RowLayout.offsets else { return a.pointee.id == b.pointee.id }
        return values(field(a, layout.id, String.self), field(b, layout.id, String.self))
    }

    /// Whether two sections in memory have the same id.
    private static func sectionIDs(_ a: UnsafePointer<Section>, _ b: UnsafePointer<Section>) -> Bool {
        guard let layout = SectionLayout.offsets else { return a.pointee.id == b.pointee.id }
        return values(field(a, layout.id, String.self), field(b, layout.id, String.self))
    }

    /// Whether two sections in memory have equal headers and footers.
    private static func headersAndFooters(_ a: UnsafePointer<Section>, _ b: UnsafePointer<Section>) -> Bool {
        guard let layout = SectionLayout.offsets else { return a.pointee.header == b.pointee.header && a.pointee.footer == b.pointee.footer }
        return values(field(a, layout.header, HeaderFooter?.self), field(b, layout.header, HeaderFooter?.self))
            && values(field(a, layout.footer, HeaderFooter?.self), field(b, layout.footer, HeaderFooter?.self))
    }

    /// `a.pointee == b.pointee`, without a copy when their bytes are identical.
    @inline(__always)
    static func values<Value: Equatable>(_ a: UnsafePointer<Value>, _ b: UnsafePointer<Value>) -> Bool {
        identicalBytes(UnsafeRawPointer(a), UnsafeRawPointer(b), count: MemoryLayout<Value>.size) || a.pointee == b.pointee
    }

    /// The stored property at `offset` of the value at `base`.
    @inline(__always)
    private static func field<Root, Value>(_ base: UnsafePointer<Root>, _ offset: Int, _: Value.Type) -> UnsafePointer<Value> {
        (UnsafeRawPointer(base) + offset).assumingMemoryBound(to: Value.self)
    }

    @inline(__always)
    private static func identicalBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset + 8 <= count {
            guard a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < count {
            guard a.load(fromByteOffset: offset, as: UInt8.self) == b.load(fromByteOffset: offset, as: UInt8.self) else { return false }
            offset += 1
        }
        return true
    }

    /// Where `Section`'s fields that hold references lie, but its rows (computed once).
    private enum SectionLayout {
        static let offsets: (id: Int, header: Int, footer: Int)? = {
            guard let id = MemoryLayout<Section>.offset(of: \Section.id), let header = MemoryLayout<Section>.offset(of: \Section.header),
                let footer = MemoryLayout<Section>.offset(of: \Section.footer)
            else { return nil }
            return (id, header, footer)
        }()
    }

    /// Where `Row`'s fields that hold references lie (computed once).
    private enum RowLayout {
        static let offsets: (id: Int, content: Int, error: Int, leadingActions: Int, trailingActions: Int, accessibility: Int)? = {
            guard let id = MemoryLayout<Row>.offset(of: \Row.id), let content = MemoryLayout<Row>.offset(of: \Row.content),
                let error = MemoryLayout<Row>.offset(of: \Row.error), let leading = MemoryLayout<Row>.offset(of: \Row.leadingActions),
                let trailing = MemoryLayout<Row>.offset(of: \Row.trailingActions),
                let accessibility = MemoryLayout<Row>.offset(of: \Row.accessibility)
            else { return nil }
            return (id, content, error, leading, trailing, accessibility)
        }()
    }
}
