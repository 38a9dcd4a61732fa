/// The changes that turn one screen into another, in the index rules of one
/// `UITableView.performBatchUpdates`:
///
/// - Deletions and every `from` use the **old** screen's indexes; insertions and every
///   `to` use the **new** screen's indexes.
/// - To apply it: remove deleted rows and moved-out rows (old paths); remove deleted and
///   moved-out sections (old indexes); insert new and moved sections in ascending order
///   (new indexes); insert new and moved rows in ascending order (new paths); then set
///   updated content at `to`.
/// - Identity is the section or row `id`. A kept row or section is never deleted and
///   inserted, except a row whose old section is deleted or whose new section is
///   inserted: it travels with its section, whose insertion carries all its rows. A row
///   whose kind changed (a new version of its screen's definition) is not kept: another
///   kind is another cell, so it is deleted and inserted.
/// - `updated` lists every kept row or section whose content changed; a row may be both
///   moved and updated. For a section, content means its header and footer.
/// - Every list is sorted: deletions by old index, the rest by new index (`to`).
public struct ChangeSet: Hashable, Sendable {
    public struct SectionChanges: Hashable, Sendable {
        /// Old indexes of removed sections, ascending.
        public var deleted: [Int] = []
        /// New sections with all their rows, ascending by new index.
        public var inserted: [SectionInsertion] = []
        /// Kept sections outside the longest run that kept its relative order.
        public var moved: [SectionMove] = []
        /// Kept sections whose header or footer changed.
        public var updated: [SectionUpdate] = []

        public init() {}

        public var isEmpty: Bool { deleted.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty }
    }

    public struct RowChanges: Hashable, Sendable {
        /// Old paths of removed rows, ascending. Rows of deleted sections are not listed.
        public var deleted: [RowPath] = []
        /// New rows, ascending by new path. Rows of inserted sections are not listed.
        public var inserted: [RowInsertion] = []
        /// Kept rows that changed section, or that left the longest run of their section
        /// which kept its relative order; ascending by new path.
        public var moved: [RowMove] = []
        /// Kept rows whose content changed, ascending by new path.
        public var updated: [RowUpdate] = []

        public init() {}

        public var isEmpty: Bool { deleted.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty }
    }

    public var sections = SectionChanges()
    public var rows = RowChanges()
    /// The new title when the title changed; `nil` when it did not.
    public var title: String?
    /// The new style when the style changed; `nil` when it did not.
    public var style: StyleChange?

    public init() {}

    /// Whether applying the change set changes nothing.
    public var isEmpty: Bool { sections.isEmpty && rows.isEmpty && title == nil && style == nil }
}

/// A new section, with its rows, at its index in the new screen.
public struct SectionInsertion: Hashable, Sendable {
    public var index: Int
    public var section: Section

    public init(index: Int, section: Section) {
        self.index = index
        self.section = section
    }
}

/// A kept section that moves from its old index to its new index.
public struct SectionMove: Hashable, Sendable {
    public var from: Int
    public var to: Int

    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }
}

/// A kept section whose header or footer changed: the new header and footer (`nil` for none).
public struct SectionUpdate: Hashable, Sendable {
    public var from: Int
    public var to: Int
    public var header: HeaderFooter?
    public var footer: HeaderFooter?

    public init(from: Int, to: Int, header: HeaderFooter?, footer: HeaderFooter?) {
        self.from = from
        self.to = to
        self.header = header
        self.footer = footer
    }
}

/// A new row at its path in the new screen.
public struct RowInsertion: Hashable, Sendable {
    public var path: RowPath
    public var row: Row

    public init(path: RowPath, row: Row) {
        self.path = path
        self.row = row
    }
}

/// A kept row that moves from its old path to its new path.
public struct RowMove: Hashable, Sendable {
    public var from: RowPath
    public var to: RowPath

    public init(from: RowPath, to: RowPath) {
        self.from = from
        self.to = to
    }
}

/// A kept row whose content changed: its old path, its new path and its new model.
public struct RowUpdate: Hashable, Sendable {
    public var from: RowPath
    public var to: RowPath
    public var row: Row

    public init(from: RowPath, to: RowPath, row: Row) {
        self.from = from
        self.to = to
        self.row = row
    }
}

/// A change of the screen's table style (`style` is `nil` when the new screen has none).
public struct StyleChange: Hashable, Sendable {
    public var style: TableStyle?

    public init(_ style: TableStyle?) {
        self.style = style
    }
}
