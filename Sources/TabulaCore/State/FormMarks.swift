/// What a session remembers of its input rows besides their values: which the user has
/// touched, and what the last value of a secure field came to. Durable and revisioned with
/// the state, so that errors show the same on every instance and after a restart; never in
/// the values a backend reads or writes, nor in a feed entry's changed keys.
///
/// Rows are named by screen and row id (``key(screen:row:)``): row ids are unique within a
/// screen only.
public struct FormMarks: Hashable, Sendable {
    /// Input rows edited, or whose form's submit was tried: their errors show.
    public var touched: Set<String> = []
    /// For each secure text field whose value was seen (by an edit or a submit): the
    /// message of its first failing rule, `""` when the value passed. The value itself is
    /// never kept.
    public var secureResults: [String: String] = [:]

    public init(touched: Set<String> = [], secureResults: [String: String] = [:]) {
        self.touched = touched
        self.secureResults = secureResults
    }

    public var isEmpty: Bool { touched.isEmpty && secureResults.isEmpty }

    /// A row's name in the marks: screen ids never hold a `/`, so the first one separates.
    public static func key(screen: String, row: String) -> String { "\(screen)/\(row)" }

    /// `{"secure": {KEY: MESSAGE}, "touched": [KEY, ...]}`, keys sorted, as stores keep it.
    public var json: JSONValue {
        var object = JSONObject()
        if !secureResults.isEmpty {
            var results = JSONObject()
            for key in secureResults.keys.sorted(by: { $0.utf8Precedes($1) }) { results[key] = secureResults[key].map(JSONValue.string) }
            object["secure"] = .object(results)
        }
        if !touched.isEmpty { object["touched"] = .array(touched.sorted(by: { $0.utf8Precedes($1) }).map(JSONValue.string)) }
        return .object(object)
    }

    /// Reads what ``json`` wrote; anything else is damage.
    public init(stored json: JSONValue, path: String) throws(StateDecodingError) {
        guard case .object(let object) = json else { throw StateDecodingError(path: path, message: "form marks are an object") }
        for (key, value) in object.pairs {
            switch (key, value) {
            case ("touched", .array(let keys)):
                for element in keys {
                    guard case .string(let key) = element else { throw StateDecodingError(path: "\(path).touched", message: "a touched row is a string") }
                    touched.insert(key)
                }
            case ("secure", .object(let results)):
                for (row, message) in results.pairs {
                    guard case .string(let text) = message else { throw StateDecodingError(path: "\(path).secure", message: "a result is a string") }
                    secureResults[row] = text
                }
            default:
                throw StateDecodingError(path: "\(path).\(key)", message: "not a member of form marks")
            }
        }
    }
}
