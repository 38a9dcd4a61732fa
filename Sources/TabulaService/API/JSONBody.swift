import TabulaCore

/// A JSON request body: the one place where one becomes a value, or the members of an
/// object, or a 400 that says what is wrong with it.
enum JSONBody {
    /// Bodies nest no deeper than this: a state is an object of lists of records.
    static let maxDepth = 16

    /// The body's JSON value, whatever it is.
    static func value(_ body: [UInt8]) throws(Problem) -> JSONValue {
        do {
            return try JSONParser(maxDepth: maxDepth).parse(body)
        } catch {
            throw Problem.malformedJSON(error)
        }
    }

    /// The members of the body's object, in written order.
    static func members(_ body: [UInt8]) throws(Problem) -> [(key: String, value: JSONValue)] {
        let json = try value(body)
        guard case .object(let object) = json else {
            throw Problem.invalidBody("the body must be a JSON object, not \(json.typeName)")
        }
        return object.pairs
    }
}
