extension ChangeSet {
    /// The change set in the wire model: compact JSON, keys in ascending byte order.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}

extension JSONWriter {
    package mutating func write(_ changes: ChangeSet) {
        beginObject()
        key("rows")
        beginObject()
        list(#""deleted":[]"#, changes.rows.deleted) { $0.write($1) }
        list(#""inserted":[]"#, changes.rows.inserted) { writer, insertion in
            writer.beginObject()
            writer.key("model"); writer.write(insertion.row)
            writer.key("row"); writer.int(insertion.path.row)
            writer.key("section"); writer.int(insertion.path.section)
            writer.endObject()
        }
        list(#""moved":[]"#, changes.rows.moved) { writer, move in
            writer.beginObject()
            writer.key("from"); writer.write(move.from)
            writer.key("to"); writer.write(move.to)
            writer.endObject()
        }
        list(#""updated":[]"#, changes.rows.updated) { writer, update in
            writer.beginObject()
            writer.key("from"); writer.write(update.from)
            writer.key("model"); writer.write(update.row)
            writer.key("to"); writer.write(update.to)
            writer.endObject()
        }
        endObject()

        key("sections")
        beginObject()
        list(#""deleted":[]"#, changes.sections.deleted) { $0.int($1) }
        list(#""inserted":[]"#, changes.sections.inserted) { writer, insertion in
            writer.beginObject()
            writer.key("index"); writer.int(insertion.index)
            writer.key("section"); writer.write(insertion.section)
            writer.endObject()
        }
        list(#""moved":[]"#, changes.sections.moved) { writer, move in
            writer.beginObject()
            writer.key("from"); writer.int(move.from)
            writer.key("to"); writer.int(move.to)
            writer.endObject()
        }
        list(#""updated":[]"#, changes.sections.updated) { writer, update in
            writer.beginObject()
            writer.key("footer"); writer.write(optional: update.footer)
            writer.key("from"); writer.int(update.from)
            writer.key("header"); writer.write(optional: update.header)
            writer.key("to"); writer.int(update.to)
            writer.endObject()
        }
        endObject()

        if let style = changes.style {
            key("style")
            if let value = style.style { string(value.rawValue) } else { null() }
        }
        if let title = changes.title {
            key("title"); string(title)
        }
        endObject()
    }

    /// Writes a header or footer model, or `null` for none.
    package mutating func write(optional model: HeaderFooter?) {
        if let model { write(model) } else { null() }
    }

    package mutating func write(_ path: RowPath) {
        beginObject()
        key("row"); int(path.row)
        key("section"); int(path.section)
        endObject()
    }
}
