extension ChangeSet {
    /// Decodes a change set from JSON bytes in the wire model (for clients that apply it).
    public init(jsonBytes: [UInt8]) throws(WireFormatError) {
        try self.init(json: try JSONValue.parseWire(jsonBytes))
    }

    /// Decodes a change set from a JSON value in the wire model.
    public init(json: JSONValue) throws(WireFormatError) {
        self.init()
        var reader = try WireObjectReader(json, path: "$")
        var sectionReader = try WireObjectReader(try reader.required("sections"), path: "$.sections")
        var rowReader = try WireObjectReader(try reader.required("rows"), path: "$.rows")
        if reader.object["title"] != nil {
            title = try reader.string("title")
        }
        if reader.object["style"] != nil {
            style = StyleChange(try reader.enumeration("style", as: TableStyle.self))
        }
        try reader.rejectUnread()

        sections.deleted = try Self.elements(&sectionReader, "deleted") { value, path throws(WireFormatError) in
            try WireObjectReader.nonNegativeInt(value, path: path)
        }
        sections.inserted = try Self.elements(&sectionReader, "inserted") { value, path throws(WireFormatError) in
            var item = try WireObjectReader(value, path: path)
            let insertion = SectionInsertion(
                index: try item.nonNegativeInt("index"),
                section: try Section(json: try item.required("section"), path: item.memberPath("section")))
            try item.rejectUnread()
            return insertion
        }
        sections.moved = try Self.elements(&sectionReader, "moved") { value, path throws(WireFormatError) in
            var item = try WireObjectReader(value, path: path)
            let move = SectionMove(from: try item.nonNegativeInt("from"), to: try item.nonNegativeInt("to"))
            try item.rejectUnread()
            return move
        }
        sections.updated = try Self.elements(&sectionReader, "updated") { value, path throws(WireFormatError) in
            var item = try WireObjectReader(value, path: path)
            let from = try item.nonNegativeInt("from")
            let to = try item.nonNegativeInt("to")
            // Both are given, `null` for none: a missing one is not read as a removal.
            for key in ["header", "footer"] where item.object[key] == nil {
                throw WireFormatError(path: path, problem: .missingField(key))
            }
            let header = try item.optional("header").map { value throws(WireFormatError) in
                try HeaderFooter(json: value, path: item.memberPath("header"))
            }
            let footer = try item.optional("footer").map { value throws(WireFormatError) in
                try HeaderFooter(json: value, path: item.memberPath("footer"))
            }
            try item.rejectUnread()
            return SectionUpdate(from: from, to: to, header: header, footer: footer)
        }
        try sectionReader.rejectUnread()

        rows.deleted = try Self.elements(&rowReader, "deleted") { value, path throws(WireFormatError) in
            try RowPath(json: value, path: path)
        }
        rows.inserted = try Self.elements(&rowReader, "inserted") { value, path throws(WireFormatError) in
            var item = try WireObjectReader(value, path: path)
            let insertion = RowInsertion(
                path: RowPath(section: try item.nonNegativeInt("section"), row: try item.nonNegativeInt("row")),
                row: try Row(json: try item.required("model"), path: item.memberPath("model")))
            try item.rejectUnread()
            return insertion
        }
        rows.moved = try Self.elements(&rowReader, "moved") { value, path throws(WireFormatError) in
            var item = try WireObjectReader(value, path: path)
            let move = RowMove(
                from: try RowPath(json: try item.required("from"), path: item.memberPath("from")),
                to: try RowPath(json: try item.required("to"), path: item.memberPath("to")))
            try item.rejectUnread()
            return move
        }
        rows.updated = try Self.elements(&rowReader, "updated") { value, path throws(WireFormatError) in
            var item = try WireObjectReader(value, path: path)
            let update = RowUpdate(
                from: try RowPath(json: try item.required("from"), path: item.memberPath("from")),
                to: try RowPath(json: try item.required("to"), path: item.memberPath("to")),
                row: try Row(json: try item.required("model"), path: item.memberPath("model")))
            try item.rejectUnread()
            return update
        }
        try rowReader.rejectUnread()
    }

    private static func elements<Element>(
        _ reader: inout WireObjectReader, _ key: String,
        _ decode: (JSONValue, String) throws(WireFormatError) -> Element
    ) throws(WireFormatError) -> [Element] {
        var result: [Element] = []
        for (index, value) in try reader.array(key).enumerated() {
            result.append(try decode(value, "\(reader.memberPath(key))[\(index)]"))
        }
        return result
    }
}

extension RowPath {
    /// Decodes `{"section": S, "row": R}`; `path` names it in errors.
    public init(json: JSONValue, path: String) throws(WireFormatError) {
        var reader = try WireObjectReader(json, path: path)
        self.init(section: try reader.nonNegativeInt("section"), row: try reader.nonNegativeInt("row"))
        try reader.rejectUnread()
    }
}
