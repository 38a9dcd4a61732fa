extension StateType {
    /// Checks a JSON value against this type, reporting each problem as (path, message);
    /// returns the value when there was no problem.
    func decode(_ json: JSONValue, path: String, report: (String, String) -> Void) -> StateValue? {
        switch self {
        case .scalar(let type):
            guard let value = Self.scalar(json), value.scalarType == type else {
                report(path, "expected a \(type.rawValue), found \(json.typeName)")
                return nil
            }
            return .scalar(value)
        case .list(let schema):
            guard case .array(let elements) = json else {
                report(path, "expected a list of records, found \(json.typeName)")
                return nil
            }
            return Self.records(elements, schema: schema, path: path, report: report).map(StateValue.list)
        }
    }

    static func scalar(_ json: JSONValue) -> FieldValue? {
        switch json {
        case .bool(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        default: nil
        }
    }

    /// Reads list items against a schema: each an object with a unique, non-empty string
    /// `id` and exactly the schema's fields.
    static func records(
        _ elements: [JSONValue], schema: RecordSchema, path: String, report: (String, String) -> Void
    ) -> [Record]? {
        var records: [Record] = []
        var ids: Set<String> = []
        var failed = false
        for (index, element) in elements.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard let record = record(element, schema: schema, path: itemPath, report: report) else {
                failed = true
                continue
            }
            guard ids.insert(record.id).inserted else {
                report(itemPath + ".id", "item id \"\(record.id)\" is used more than once; the items of a list need unique ids")
                failed = true
                continue
            }
            records.append(record)
        }
        return failed ? nil : records
    }

    private static func record(
        _ element: JSONValue, schema: RecordSchema, path: String, report: (String, String) -> Void
    ) -> Record? {
        guard case .object(let object) = element else {
            report(path, "expected a record (an object with a string \"id\"), found \(element.typeName)")
            return nil
        }
        guard case .string(let id)? = object["id"], !id.isEmpty else {
            report(path, "every item needs a non-empty string \"id\"; rows repeated over the list take their identity from it")
            return nil
        }
        // Row ids and item screens' ?item= are built from item ids.
        if let reason = Record.problem(ofID: id) {
            report(
                path + ".id",
                "item id \"\(id.prefix(64))\" cannot name an item: \(reason); rows repeated over the list build their ids around it, so keep it short and begin and end it with a letter, digit or symbol"
            )
            return nil
        }
        var fields: [String: FieldValue] = [:]
        var failed = false
        for (name, value) in object.pairs where name != "id" {
            guard let type = schema.fields[name] else {
                let known = schema.fields.keys.sorted()
                report(path, "unknown field \"\(name)\"; the items have \(known.isEmpty ? "only an id" : "id, " + known.joined(separator: ", "))")
                failed = true
                continue
            }
            guard let scalar = scalar(value), scalar.scalarType == type else {
                report("\(path).\(name)", "expected a \(type.rawValue), found \(value.typeName)")
                failed = true
                continue
            }
            fields[name] = scalar
        }
        for name in schema.fields.keys.sorted() where fields[name] == nil && object[name] == nil {
            report(path, "missing field \"\(name)\"")
            failed = true
        }
        return failed ? nil : Record(id: id, fields: fields)
    }

    /// The schema that the items of a default list imply: the first item's fields and types.
    static func inferredSchema(_ elements: [JSONValue]) -> RecordSchema {
        guard case .object(let first)? = elements.first else { return RecordSchema() }
        var fields: [String: ScalarType] = [:]
        for (name, value) in first.pairs where name != "id" {
            if let scalar = scalar(value) { fields[name] = scalar.scalarType }
        }
        return RecordSchema(fields: fields)
    }
}

extension StateValue {
    /// A value as a store saved it, read without a schema: a scalar, or a list of records
    /// (objects with a string `id`, each id once, and scalar fields). Throws for anything
    /// else, which no store writes (a list with an id twice is a row changed by hand, and
    /// would show two rows of one id); `path` names the value in the problem.
    init(stored json: JSONValue, path: String) throws(StateDecodingError) {
        if let scalar = StateType.scalar(json) {
            self = .scalar(scalar)
            return
        }
        guard case .array(let elements) = json else {
            throw StateDecodingError(path: path, message: "a stored value is a bool, number, string or list of records, not \(json.typeName)")
        }
        var records: [Record] = []
        records.reserveCapacity(elements.count)
        var ids = Set<String>(minimumCapacity: elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object(let object) = element, case .string(let id)? = object["id"] else {
                throw StateDecodingError(path: "\(path)[\(index)]", message: "a stored record is an object with a string \"id\"")
            }
            guard ids.insert(id).inserted else {
                throw StateDecodingError(path: "\(path)[\(index)].id", message: "a stored list holds the item id \"\(id.prefix(64))\" twice")
            }
            var fields: [String: FieldValue] = [:]
            for (name, value) in object.pairs where name != "id" {
                guard let scalar = StateType.scalar(value) else {
                    throw StateDecodingError(path: "\(path)[\(index)].\(name)", message: "a stored field is a bool, number or string, not \(value.typeName)")
                }
                fields[name] = scalar
            }
            records.append(Record(id: id, fields: fields))
        }
        self = .list(records)
    }
}
