/// What a session remembers of its input rows besides their values: which the user has
/// touched, what the last value of a secure field came to, and the errors the backend
/// named. Durable and revisioned with
/// the state, so that errors show the same on every instance and after a restart; never in
/// the values a backend reads or writes, nor in a feed entry's changed keys.
///
/// Rows are named by screen and row id (``key(screen:row:)``): row ids are unique within a
/// screen only.
public struct FormMarks: Hashable, Sendable {
    /// Input rows edited, or whose form's submit was tried: their errors show.
    public var touched: Set<String> {
        get { storage?.touched ?? [] }
        _modify { yield &uniqueStorage().touched }
    }
    /// What the rules said of values the service does not keep: for each secure text field
    /// whose value was seen (by an edit or a submit), and each row whose `equals` failed
    /// only against a secure field's value at a submit, the index of the first rule it
    /// failed in the row's `validate`, or ``passed``. Neither the value nor the message is
    /// kept: the message is the rule's, written when the row is drawn, so that it follows
    /// the client's language and the state like every other row's.
    public var secureResults: [String: Int] {
        get { storage?.secureResults ?? [:] }
        _modify { yield &uniqueStorage().secureResults }
    }
    /// The messages a backend's answer to a `call` put on rows: shown until the row's next
    /// edit, or its form's next submit or reset.
    public var backendErrors: [String: String] {
        get { storage?.backendErrors ?? [:] }
        _modify { yield &uniqueStorage().backendErrors }
    }

    /// The marks, shared until one copy changes them; `nil` until there are any. Most
    /// sessions have none, and a state is copied many times an event: its marks then cost
    /// no reference count, and one at most once there are some.
    private var storage: Storage?

    /// A ``secureResults`` entry: the value passed every rule.
    public static let passed = -1

    private final class Storage: @unchecked Sendable {
        // Mutated only through `uniqueStorage()`, when no other copy holds it.
        var touched: Set<String>
        var secureResults: [String: Int]
        var backendErrors: [String: String]

        init(touched: Set<String>, secureResults: [String: Int], backendErrors: [String: String]) {
            self.touched = touched
            self.secureResults = secureResults
            self.backendErrors = backendErrors
        }
    }

    private mutating func uniqueStorage() -> Storage {
        if isKnownUniquelyReferenced(&storage), let storage { return storage }
        let unique = Storage(touched: touched, secureResults: secureResults, backendErrors: backendErrors)
        storage = unique
        return unique
    }

    public init(touched: Set<String> = [], secureResults: [String: Int] = [:], backendErrors: [String: String] = [:]) {
        if !touched.isEmpty || !secureResults.isEmpty || !backendErrors.isEmpty {
            storage = Storage(touched: touched, secureResults: secureResults, backendErrors: backendErrors)
        }
    }

    public static func == (lhs: FormMarks, rhs: FormMarks) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.touched == rhs.touched && lhs.secureResults == rhs.secureResults && lhs.backendErrors == rhs.backendErrors)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(touched)
        hasher.combine(secureResults)
        hasher.combine(backendErrors)
    }

    public var isEmpty: Bool { touched.isEmpty && secureResults.isEmpty && backendErrors.isEmpty }

    /// Forgets what the backend said of a row.
    mutating func clearBackendError(_ key: String) {
        if !backendErrors.isEmpty { backendErrors[key] = nil }
    }

    /// A row's name in the marks: screen ids never hold a `/`, so the first one separates.
    public static func key(screen: String, row: String) -> String { "\(screen)/\(row)" }

    /// `{"backend": {KEY: MESSAGE}, "secure": {KEY: RULE-INDEX}, "touched": [KEY, ...]}`,
    /// keys sorted, empty members left out, as stores keep it (a rule index of -1: passed).
    public var json: JSONValue {
        var object = JSONObject()
        if !backendErrors.isEmpty { object["backend"] = Self.messages(backendErrors) }
        if !secureResults.isEmpty {
            var results = JSONObject()
            for key in secureResults.keys.sorted(by: { $0.utf8Precedes($1) }) {
                results[key] = secureResults[key].map { .number(Double($0)) }
            }
            object["secure"] = .object(results)
        }
        if !touched.isEmpty { object["touched"] = .array(touched.sorted(by: { $0.utf8Precedes($1) }).map(JSONValue.string)) }
        return .object(object)
    }

    private static func messages(_ messages: [String: String]) -> JSONValue {
        var object = JSONObject()
        for key in messages.keys.sorted(by: { $0.utf8Precedes($1) }) { object[key] = messages[key].map(JSONValue.string) }
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
                secureResults = try Self.ruleIndexes(results, path: "\(path).secure")
            case ("backend", .object(let errors)):
                backendErrors = try Self.messages(errors, path: "\(path).backend")
            default:
                throw StateDecodingError(path: "\(path).\(key)", message: "not a member of form marks")
            }
        }
    }

    /// Rule indexes; a message, as marks written before rules were kept by index held, is
    /// `""` for a value that passed, and any other text for one whose failing rule is not
    /// known, which then counts as never seen.
    private static func ruleIndexes(_ object: JSONObject, path: String) throws(StateDecodingError) -> [String: Int] {
        var results: [String: Int] = [:]
        for (row, result) in object.pairs {
            switch result {
            case .number(let number) where number >= Double(passed) && number < 1_000_000 && number.rounded() == number:
                results[row] = Int(number)
            case .string(""):
                results[row] = passed
            case .string:
                continue
            default:
                throw StateDecodingError(path: path, message: "a rule's result is a rule index (-1: passed)")
            }
        }
        return results
    }

    private static func messages(_ object: JSONObject, path: String) throws(StateDecodingError) -> [String: String] {
        var messages: [String: String] = [:]
        for (row, message) in object.pairs {
            guard case .string(let text) = message else { throw StateDecodingError(path: path, message: "a message is a string") }
            messages[row] = text
        }
        return messages
    }
}
