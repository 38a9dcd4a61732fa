import TabulaCore

/// A request body that must be a JSON object: the one place where such a body becomes its
/// members or a 400 that says what is wrong with it.
enum JSONBody {
    /// Bodies nest no deeper than this: a state is an object of lists of records.
    static let maxDepth = 16

    /// The members of the body's object, in written order.
    static func members(_ body: [UInt8]) throws(Problem) -> [(key: String, value: JSONValue)] {
        let json: JSONValue
        do {
            json = try JSONParser(maxDepth: maxDepth).parse(body)
        } catch {
            throw Problem.malformedJSON(error)
        }
        guard case .object(let object) = json else {
            throw Problem.invalidBody("the body must be a JSON object, not \(json.typeName)")
        }
        return object.pairs
    }
}
