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

    /// Reads the context as ``json`` writes it; members it does not know are left out.
    public init(stored json: JSONValue) {
        guard case .object(let object) = json else {
            self.init()
            return
        }
        var kinds: Set<String>?
        if case .array(let names)? = object["kinds"] {
            kinds = Set(names.compactMap { if case .string(let name) = $0 { name } else { nil } })
        }
        var locale: String?
        if case .string(let tag)? = object["locale"] { locale = tag }
        self.init(locale: locale, kinds: kinds)
    }
}
