/// The JSON Schema (draft 2020-12) of a string table file (`strings/LOCALE.json`), for
/// editors and checkers. Built from the reader's own rules: the key alphabet, CLDR's plural
/// forms, and `other` required. Whether every message a definition names is there, and
/// whether a call gives the arguments a text uses, is left to `tabula validate`.
public enum StringTableSchema {
    /// The schema's `$id`.
    public static let id = "urn:tabula:string-table"

    /// What a key may be, as a regular expression (``StringTables/isKey(_:)``).
    static var keyPattern: String { "^[A-Za-z0-9._-]{1,\(StringTables.maxKeyBytes)}$" }

    /// The schema as a JSON document (`tabula schema --strings` prints it;
    /// `Fixtures/strings.schema.json` is a copy).
    public static var document: JSONValue {
        let text: JSONValue = [
            "type": "string",
            "description":
                "A text; {name} is replaced by the argument of that name that the definition gives (@key(name: value)), a number written as the locale writes numbers.",
        ]
        var forms = JSONObject()
        for category in PluralCategory.allCases {
            forms[category.rawValue] = [
                "type": "string",
                "description": .string("The text for numbers in CLDR's \"\(category.rawValue)\" form of this locale."),
            ]
        }
        let plural: JSONValue = [
            "type": "object",
            "description":
                "A plural message: one text per CLDR plural form the language uses, chosen by the number given as the argument count (@key(count: list.count)); \"other\" is required.",
            "properties": .object(forms),
            "required": ["other"],
            "additionalProperties": false,
        ]
        var patterns = JSONObject()
        patterns[keyPattern] = ["oneOf": [text, plural]]
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": .string(id),
            "title": "Tabula string table",
            "description":
                "The messages of one locale, by key; the file is named after the locale (fr.json, pt-BR.json). Definitions name a message as @key inside {{ }}. See docs/definitions.md#strings-and-languages.",
            "type": "object",
            "properties": [
                "$schema": [
                    "type": "string",
                    "description": "The JSON Schema editors check this file with, such as \"../strings.schema.json\". Ignored by Tabula.",
                ]
            ],
            "patternProperties": .object(patterns),
            "additionalProperties": false,
        ]
    }
}
