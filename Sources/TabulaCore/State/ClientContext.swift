/// What a session's client is: the language it shows, and the row kinds it can draw. It is
/// part of the session's state: a change of it is a revision like any other, and every
/// screen renders for it.
public struct ClientContext: Hashable, Sendable {
    /// A BCP 47 language tag; `nil` for the catalogue's default language.
    public var locale: String?
    /// The row kinds the client draws; `nil` when it did not say, and gets every kind.
    public var kinds: Set<String>?

    public init(locale: String? = nil, kinds: Set<String>? = nil) {
        self.locale = locale
        self.kinds = kinds
    }

    /// A client that said nothing: the default language, every kind.
    public static let unspecified = ClientContext()

    /// `{"kinds": [...], "locale": "..."}`, each member only when set; kinds sorted.
    public var json: JSONValue {
        var object = JSONObject()
        if let kinds { object["kinds"] = .array(kinds.sorted { $0.utf8Precedes($1) }.map(JSONValue.string)) }
        if let locale { object["locale"] = .string(locale) }
        return .object(object)
    }

    /// Reads the context as ``json`` writes it; members it does not know are left out (a
    /// later version may add some). Throws when a member it knows is not what ``json``
    /// writes: the stored form is damaged. `path` names it in the problem.
    public init(stored json: JSONValue, path: String = "$") throws(StateDecodingError) {
        guard case .object(let object) = json else {
            throw StateDecodingError(path: path, message: "a stored client context is an object, not \(json.typeName)")
        }
        var kinds: Set<String>?
        switch object["kinds"] {
        case nil: break
        case .array(let names)?:
            var found: Set<String> = []
            for (index, name) in names.enumerated() {
                guard case .string(let kind) = name else {
                    throw StateDecodingError(path: "\(path).kinds[\(index)]", message: "a kind is a string, not \(name.typeName)")
                }
                found.insert(kind)
            }
            // An empty list lists none, as no list does (one stored before requests said so).
            kinds = found.isEmpty ? nil : found
        case let other?:
            throw StateDecodingError(path: "\(path).kinds", message: "kinds are a list of strings, not \(other.typeName)")
        }
        var locale: String?
        switch object["locale"] {
        case nil: break
        case .string(let tag)?: locale = tag
        case let other?: throw StateDecodingError(path: "\(path).locale", message: "a locale is a string, not \(other.typeName)")
        }
        self.init(locale: locale, kinds: kinds)
    }
}
