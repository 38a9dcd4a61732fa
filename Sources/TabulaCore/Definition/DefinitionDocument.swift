/// A screen definition as one self-contained document, and the id that names it.
///
/// A client's copy of a screen is identified by the definition that rendered it and the
/// revision of the state. The document is the definition file without `$schema`, its
/// `"state"` replaced by the explicit declaration (`{"type", "default", "item"?}`) of every
/// key the screen declares, reads or writes (keys other screens declare included), and,
/// when it names messages, `"strings"`: their texts in every locale (so a changed
/// translation is a new definition, as a changed row is), written
/// as canonical JSON: the same content gives the same bytes whatever the file's layout, key
/// order, number spelling or name. The id is the first 15 hexadecimal digits of the SHA-256
/// of the format's tag and those bytes, so every instance computes the same id, and any
/// change that can change what the screen renders gives a new one.
///
/// Stores keep the documents of the definitions a service served, so that any instance can
/// render a client's copy with the definition that made it (``ScreenDefinition/reading(document:rules:)``).
public struct DefinitionDocument: Hashable, Sendable {
    /// The definition's id, as screens carry it in `"definition"`.
    public let id: String
    /// The canonical JSON of the document.
    public let bytes: [UInt8]
    /// The id's first 64 bits, which a state copies cheaply to remember the definition it
    /// conforms to (a `String` of 20 characters is a reference to count on every copy).
    let fingerprint: UInt64

    /// Digits of the id: 60 bits, which no two definitions are expected to share, and short
    /// enough that a `String` keeps it inline. A screen carries the id, and screens are
    /// copied on every request: a longer id would be an allocation shared by every thread,
    /// whose reference count each copy writes.
    static let idLength = 15

    /// Hashed before the document; a Tabula that renders a document differently than
    /// earlier versions did must change it, so that its ids differ from theirs.
    static let formatTag = Array("tabula screen definition 1\n".utf8)

    /// The document of a definition file's top-level object and the declarations of the
    /// keys its screen uses.
    init(_ file: JSONObject, declarations: [(key: String, declaration: StateDeclaration)], strings: StringTables? = nil) {
        var document = file
        document[ScreenMember.schema.rawValue] = nil
        var state = JSONObject()
        for (key, declaration) in declarations { state[key] = declaration.json }
        document["state"] = .object(state)
        if let strings { document[Self.stringsMember] = strings.json }
        bytes = JSONValue.object(document).canonicalBytes
        let digest = SHA256.digest(Self.formatTag + bytes)
        id = String(SHA256.hex(digest).prefix(Self.idLength))
        fingerprint = digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The member of a document that holds the texts of the messages the definition names;
    /// no definition file has it (its strings are in the strings directory).
    static let stringsMember = "strings"

    /// Whether `text` has the shape of an id (so that a malformed one can be refused
    /// before any lookup): 15 lowercase hexadecimal digits.
    public static func isWellFormedID(_ text: String) -> Bool {
        text.utf8.count == idLength && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension StateDeclaration {
    /// The declaration in its explicit form, which definitions accept under `"state"`.
    var json: JSONValue {
        var object = JSONObject()
        switch type {
        case .scalar(let scalar):
            object[StateDeclarationMember.type.rawValue] = .string(scalar.rawValue)
        case .list(let schema):
            object[StateDeclarationMember.type.rawValue] = .string(StateType.listTypeName)
            var item = JSONObject()
            for (name, fieldType) in schema.fields { item[name] = .string(fieldType.rawValue) }
            object[StateDeclarationMember.item.rawValue] = .object(item)
        }
        object[StateDeclarationMember.default.rawValue] = defaultValue.json
        return .object(object)
    }
}

extension ScreenDefinition {
    /// Reads a definition from its document, as a store kept it. The document names no
    /// other file: it declares every key it uses. Its `navigate` targets are not checked
    /// (they were when the definition was first loaded, with its catalogue).
    /// Its messages are written with `rules`.
    public static func reading(document bytes: [UInt8], rules: any LocaleRules) throws(DefinitionErrors) -> ScreenDefinition {
        let file = "definition document"
        var json: JSONValue
        do {
            json = try JSONParser().parse(bytes)
        } catch {
            throw DefinitionErrors([.invalidJSON(error, file: file)])
        }
        var log = ProblemLog(file: file)
        var strings: StringTables?
        if case .object(var object) = json, let tables = object[DefinitionDocument.stringsMember] {
            strings = StringTables.reading(document: tables, rules: rules, log: &log)
            object[DefinitionDocument.stringsMember] = nil
            json = .object(object)
        }
        guard log.problems.isEmpty else { throw DefinitionErrors(log.problems) }
        var reader = DefinitionReader(file: file, strings: strings)
        guard let definition = reader.readScreen(json), reader.log.problems.isEmpty else {
            throw DefinitionErrors(reader.log.problems)
        }
        return definition
    }
}
