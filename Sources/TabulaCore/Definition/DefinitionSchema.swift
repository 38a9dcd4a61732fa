/// The JSON Schema (draft 2020-12) of a screen definition file, for editors and checkers:
/// every member, row kind, action and expression position, each with a `description`.
///
/// It is built from the reader's own tables (the members it takes, the built-in kinds and
/// their fields, the actions, accessories, styles and state types), so it cannot name what
/// the reader does not read. It refuses what the reader refuses about one file's shape;
/// what needs more than the shape (expressions and templates, the state keys and kinds a
/// value names, duplicate ids, `navigate` targets, agreement between files) is left to
/// `tabula validate`. Rows and headers of custom kinds are accepted with any scalar fields:
/// their fields are declared under `"kinds"`, which a schema cannot read.
public enum DefinitionSchema {
    /// The schema's `$id`.
    public static let id = "urn:tabula:screen-definition"

    /// The schema as a JSON document (`tabula schema` prints it; `Fixtures/screen.schema.json`
    /// is a copy).
    public static var document: JSONValue {
        var screen = objectSchema(
            ScreenMember.allCases.map { ($0.rawValue, schema(for: $0)) },
            required: [ScreenMember.id, .title, .sections].map(\.rawValue),
            description:
                "A Tabula screen definition: one screen of a catalogue (all the *.json files of a directory), with typed state and sections of rows whose fields are expressions over that state. See docs/definitions.md."
        )
        screen["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        screen["$id"] = .string(id)
        screen["title"] = "Tabula screen definition"
        screen["$defs"] = .object(definitions)
        return .object(screen)
    }

    // MARK: - The screen

    private static func schema(for member: ScreenMember) -> JSONValue {
        switch member {
        case .schema:
            [
                "type": "string",
                "description":
                    "The JSON Schema editors check this file with, such as \"../screen.schema.json\" (`tabula schema` prints it). Ignored by Tabula: it is not part of the screen, nor of its definition's id.",
            ]
        case .id:
            reference(
                "safeID",
                "The screen's id, used in URLs and by `navigate`: unique in the catalogue.")
        case .title:
            reference("template", "The screen's title: a template.")
        case .style:
            enumeration(
                TableStyle.allCases.map(\.rawValue),
                "The table style the client creates its table view with; the client's default when left out.")
        case .state:
            [
                "type": "object",
                "description":
                    "The state keys this screen reads, with their defaults; a key's type is its default's. State is per session and shared by every screen of the catalogue: a screen may read and set a key another screen declares, and screens that declare the same key must declare the same type and default (checked by `tabula validate`).",
                "propertyNames": [
                    "$ref": "#/$defs/identifier",
                    "not": enumeration(DefinitionReader.reservedStateKeys, nil),
                ],
                "additionalProperties": ["$ref": "#/$defs/stateDeclaration"],
            ]
        case .kinds:
            [
                "type": "object",
                "description":
                    "Custom row, header and footer kinds, by name, with their fields' types: {\"twoLabel\": {\"name\": \"string\", \"description\": \"string\"}}. Every field is required; a kind cannot reuse a built-in name. Screens that declare the same kind must declare the same fields.",
                "propertyNames": [
                    "description": "A custom kind's name: the client's reuse identifier. Not a built-in kind's.",
                    "not": enumeration(RowContent.builtInKinds + HeaderFooter.builtInKinds, nil),
                ],
                "additionalProperties": ["$ref": "#/$defs/kindDeclaration"],
            ]
        case .item:
            [
                "type": "object",
                "description":
                    "Makes this an item screen: it shows one item of LIST, named by ?item=ID on every route of the screen; its expressions read it as item.FIELD (inside a forEach row, item is the row's). Item screens open through {\"navigate\": SCREEN, \"item\": TEMPLATE} and are not listed by GET /v1/screens.",
                "required": ["list"],
                "properties": ["list": ["type": "string", "description": "A list state key."]],
                "additionalProperties": false,
            ]
        case .sections:
            [
                "type": "array",
                "description": "The screen's sections, in order.",
                "items": ["$ref": "#/$defs/section"],
            ]
        }
    }

    private static var definitions: JSONObject {
        var definitions = JSONObject()
        definitions["safeID"] = [
            "type": "string",
            "description": .string("An id that appears in URLs: \(DefinitionReader.safeIDRule)."),
            "minLength": 1,
            "maxLength": .number(Double(DefinitionReader.safeIDMaximumLength)),
            "pattern": .string("^[A-Za-z0-9\(DefinitionReader.safeIDPunctuation.map(regexClassCharacter).joined())]+$"),
        ]
        // The reader's `isIdentifier`: '_' or a letter, then letters, digits and '_'. Past
        // ASCII, where a pattern every engine reads cannot tell letters, any character passes.
        definitions["identifier"] = [
            "type": "string",
            "description": "A name usable in expressions: letters, digits and '_', not starting with a digit.",
            "pattern": #"^(?:[A-Za-z_]|[^\x00-\x7F])(?:[A-Za-z0-9_]|[^\x00-\x7F])*$"#,
        ]
        definitions["template"] = [
            "type": "string",
            "description":
                "A template: text with {{ expression }} parts, such as \"{{item.name}}\" or \"{{@settings.title}}\". `{{` always opens an expression and the first `}}` closes it; numbers are written without a trailing .0, bools as true/false. @key is a message of the string tables in the client's language, with its arguments: \"{{@settings.knownNetworks(count: networks.count)}}\". The expressions are checked by `tabula validate`.",
        ]
        definitions[fieldDefinition(.bool)] = [
            "type": ["boolean", "string"],
            "description":
                "true or false, or a bool expression over the state (checked by `tabula validate`), such as \"wifi\", \"!bluetooth || wifi\" or \"appearance == 'dark'\"; also written as one \"{{ expression }}\" with no text around it.",
        ]
        definitions[fieldDefinition(.number)] = [
            "type": ["number", "string"],
            "description":
                "A number, or a number expression over the state (checked by `tabula validate`), such as \"networks.count\"; also written as one \"{{ expression }}\" with no text around it.",
        ]
        definitions["dimension"] = [
            "type": ["number", "string"],
            "minimum": 0,
            "description":
                "A height in points: a number (not negative), or a number expression (a value below 0 renders as 0).",
        ]
        definitions["stateDeclaration"] = stateDeclaration
        definitions["record"] = [
            "type": "object",
            "description":
                "An item of a list: a unique non-empty string \"id\" (rows repeated over the list take their identity from it) and the same scalar fields as the list's first item.",
            "required": ["id"],
            "properties": [
                "id": [
                    "type": "string", "minLength": 1,
                    "description":
                        "The item's id, unique in its list: at most 1,024 bytes of UTF-8 (the most an item screen's ?item= names), neither starting nor ending with a character that fuses with its neighbour (such as a combining mark).",
                ]
            ],
            "additionalProperties": ["type": ["boolean", "number", "string"]],
        ]
        definitions["fieldTypes"] = [
            "type": "object",
            "description": "Field names and their types: {\"name\": \"string\", \"secure\": \"bool\"}.",
            "propertyNames": ["$ref": "#/$defs/identifier"],
            "additionalProperties": enumeration(ScalarType.allCases.map(\.rawValue), "The field's type."),
        ]
        definitions["kindFields"] = [
            "$ref": "#/$defs/fieldTypes",
            "description":
                "The kind's fields and their types; rows (and headers and footers) of the kind carry each of them. A field cannot be named like a member every row has, and a field named like one of the built-in kinds has its type there.",
            "propertyNames": ["not": enumeration(RowMember.reservedFieldNames.sorted(by: { $0.utf8Precedes($1) }), nil)],
            "properties": .object(builtInFieldTypes),
        ]
        definitions["kindDeclaration"] = [
            "description":
                "A custom kind: its fields and their types ({\"name\": \"string\"}), or {\"fields\": {...}, \"fallback\": {...}} to give clients that do not draw it another kind instead.",
            "oneOf": [
                ["$ref": "#/$defs/kindFields"],
                .object(
                    objectSchema(
                        [
                            ("fields", reference("kindFields", "The kind's fields and their types.")),
                            (
                                "fallback",
                                .object(
                                    objectSchema(
                                        [
                                            (
                                                "kind",
                                                [
                                                    "type": "string",
                                                    "description":
                                                        "The kind a client that does not draw this one gets instead: a built-in row kind, or another custom kind of this file (whose own fallback is tried next).",
                                                ]
                                            ),
                                            (
                                                "fields",
                                                [
                                                    "type": "object",
                                                    "description":
                                                        "Each field of the fallback kind, and the field of this kind whose value it takes: {\"title\": \"name\"}. Every field the fallback kind requires must be given, with a field of the same type.",
                                                    "additionalProperties": ["type": "string"],
                                                ]
                                            ),
                                        ], required: ["kind"],
                                        description:
                                            "What a client that lists the kinds it draws, without this one, gets instead: the fallback kind, its fields taken from this kind's; a client that draws neither gets the next fallback, or no row."
                                    ))
                            ),
                        ], required: ["fields"], description: "A custom kind with its fields and a fallback.")),
            ],
        ]
        definitions["section"] = .object(
            objectSchema(
                SectionMember.allCases.map { ($0.rawValue, schema(for: $0)) },
                required: [SectionMember.id, .rows].map(\.rawValue),
                description: "A section: an optional header and footer, and rows."))
        definitions["headerFooter"] = headerFooter
        definitions["row"] = row
        definitions["action"] = action
        definitions["actions"] = [
            "description": "An action, or a list of actions performed in order, each seeing the state the previous one left.",
            "oneOf": [
                ["$ref": "#/$defs/action"],
                ["type": "array", "minItems": 1, "items": ["$ref": "#/$defs/action"]],
            ],
        ]
        return definitions
    }

    // MARK: - State

    private static var stateDeclaration: JSONValue {
        let typeMember = StateDeclarationMember.type.rawValue
        var cases: [JSONValue] = ScalarType.allCases.map { scalar in
            [
                "if": ["properties": [typeMember: ["const": .string(scalar.rawValue)]], "required": [.string(typeMember)]],
                "then": [
                    "properties": [StateDeclarationMember.default.rawValue: ["type": .string(jsonType(scalar))]],
                    "not": ["required": [.string(StateDeclarationMember.item.rawValue)]],
                ],
            ]
        }
        cases.append([
            "if": ["properties": [typeMember: ["const": .string(StateType.listTypeName)]], "required": [.string(typeMember)]],
            "then": [
                "properties": [StateDeclarationMember.default.rawValue: ["type": "array", "items": ["$ref": "#/$defs/record"]]]
            ],
        ])
        var explicit = objectSchema(
            StateDeclarationMember.allCases.map { member in
                let schema: JSONValue =
                    switch member {
                    case .type: enumeration(StateType.typeNames, "The key's type.")
                    case .default: ["description": "The key's default, of its type; when left out, false, 0, \"\" or an empty list."]
                    case .item: reference("fieldTypes", "A list's item fields besides \"id\", with their types (only lists have it).")
                    }
                return (member.rawValue, schema)
            },
            required: [typeMember],
            description:
                "An explicit declaration, which an empty list needs to type its items: {\"type\": \"list\", \"item\": {\"name\": \"string\"}, \"default\": []}, or {\"type\": \"bool\" | \"number\" | \"string\", \"default\": ...}."
        )
        explicit["allOf"] = .array(cases)
        return [
            "description": "A state key's default, whose type is the key's type, or its explicit declaration.",
            "oneOf": [
                ["type": ["boolean", "number", "string"], "description": "A bool, number or string key, with this default."],
                [
                    "type": "array", "items": ["$ref": "#/$defs/record"],
                    "description":
                        "A list of records, with these items by default: each has a unique non-empty string \"id\" and the same scalar fields as the first.",
                ],
                .object(explicit),
            ],
        ]
    }

    // MARK: - Sections, headers and footers

    private static func schema(for member: SectionMember) -> JSONValue {
        switch member {
        case .id:
            reference("safeID", "The section's id, unique in the screen.")
        case .header:
            reference("headerFooter", "The section's header: {\"kind\": \"titleHeader\", \"title\": TEMPLATE} or a custom kind.")
        case .footer:
            reference("headerFooter", "The section's footer: {\"kind\": \"textFooter\", \"text\": TEMPLATE} or a custom kind.")
        case .visibleWhen:
            reference(fieldDefinition(.bool), "When false, the section and its rows are hidden.")
        case .form:
            [
                "type": "string",
                "description":
                    "The form the section's input rows belong to (several sections may share one): valid('FORM') judges it, {\"submit\": FORM} touches and checks it, {\"reset\": FORM} clears it.",
            ]
        case .keepWhenEmpty:
            [
                "type": "boolean",
                "description": "true keeps the section on screen when none of its rows is visible; otherwise such a section disappears.",
            ]
        case .rows:
            ["type": "array", "description": "The section's rows, in order.", "items": ["$ref": "#/$defs/row"]]
        }
    }

    private static var headerFooter: JSONValue {
        let kinds = HeaderFooter.builtInKinds
        var cases = kinds.map { kindCase($0, fields: DefinitionReader.builtInHeaderFooterFields[$0] ?? []) }
        cases.append(customKindCase(builtIn: kinds, commonMembers: ["kind"]))
        return [
            "type": "object",
            "description":
                .string(
                    "A header or footer model: its kind and the kind's fields. Built-in kinds: \(kinds.joined(separator: ", ")); a custom kind declared under \"kinds\" carries its declared fields, which `tabula validate` checks."
                ),
            "required": ["kind"],
            "properties": ["kind": kindSchema(builtIn: kinds)],
            "allOf": .array(cases),
            "unevaluatedProperties": false,
        ]
    }

    // MARK: - Rows

    private static var row: JSONValue {
        let kinds = RowContent.builtInKinds
        var properties = JSONObject()
        for member in RowMember.allCases { properties[member.rawValue] = schema(for: member) }
        for (key, hint) in DefinitionReader.rowMemberHints { properties[key] = ["not": [:], "description": .string("Not a row member: \(hint).")] }
        let styles = ButtonStyle.allCases.map(\.rawValue)
        let buttonStyle = (
            name: DefinitionReader.buttonStyleField.name, schema: enumeration(styles, "The button's style; \(ButtonStyle.default.rawValue) when left out.")
        )
        var cases = kinds.map { kind in
            if let valueFields = DefinitionReader.inputValueFields[kind] {
                let literals = inputLiteralFields(kind)
                // A secure text field has no "text"; which one is secure, a schema cannot tell.
                let fields = valueFields.map { field in (field.name, field.type, field.required && !(kind == "textField" && field.name == "text")) }
                return kindCase(kind, fields: fields, optional: literals.map { ($0.name, $0.schema) }, alsoRequired: literals.filter(\.required).map(\.name))
            }
            return kindCase(
                kind, fields: DefinitionReader.builtInRowFields[kind] ?? [], optional: kind == DefinitionReader.buttonStyleField.kind ? [buttonStyle] : [])
        }
        cases.append(customKindCase(builtIn: kinds, commonMembers: properties.keys))
        let forEach = RowMember.forEach.rawValue
        let id = RowMember.id.rawValue
        cases.append([
            "if": ["required": [.string(forEach)]],
            "then": ["properties": [id: ["pattern": #"\{\{\s*item\s*\.\s*id\s*\}\}"#]]],
            "else": ["properties": [id: ["not": ["pattern": #"\{\{"#]]]],
        ])
        return [
            "type": "object",
            "description":
                .string(
                    "A row: its id, its kind and the kind's fields, and optional visibility, accessory, heights and actions. Built-in kinds: \(kinds.joined(separator: ", ")); a row of a custom kind declared under \"kinds\" carries that kind's fields, which `tabula validate` checks."
                ),
            "required": [.string(id), .string(RowMember.kind.rawValue)],
            "properties": .object(properties),
            "allOf": .array(cases),
            "unevaluatedProperties": false,
        ]
    }

    private static func schema(for member: RowMember) -> JSONValue {
        switch member {
        case .id:
            [
                "type": "string",
                "minLength": 1,
                "description":
                    "The row's id, unique across the screen. Fixed text, without {{ }}; with \"forEach\", fixed text around one {{item.id}}, such as \"network-{{item.id}}\": identity comes from the item's id, never its index.",
            ]
        case .kind:
            kindSchema(builtIn: RowContent.builtInKinds)
        case .forEach:
            [
                "type": "string",
                "description":
                    "A list state key: the row is repeated once per item, and its fields may use item.FIELD (item.id always exists).",
            ]
        case .filter:
            reference(fieldDefinition(.bool), "With forEach: shows the items for which it holds (it reads the item as item). Applied before sort and limit.")
        case .sort:
            [
                "type": "object",
                "description":
                    "With forEach: orders the items (stable) by an expression over the item; strings by their lowercased form, then as they are; false before true. Applied after filter, before limit. A row with it cannot have onMove.",
                "required": ["by"],
                "properties": [
                    "by": ["type": "string", "description": "An expression over the item, such as item.name."],
                    "order": enumeration(ItemSort.Order.allCases.map(\.rawValue), "ascending when left out."),
                ],
                "additionalProperties": false,
            ]
        case .limit:
            reference(
                fieldDefinition(.number), "With forEach: shows the first N items after filter and sort (a fraction rounds down; below 0 counts as 0).")
        case .visibleWhen:
            reference(fieldDefinition(.bool), "When false, the row is left out of the screen and refuses events.")
        case .enabledWhen:
            reference(
                fieldDefinition(.bool), "When false, the row is shown dimmed (\"enabled\": false) and refuses every event; enabled when left out.")
        case .accessory:
            enumeration(Accessory.allCases.map(\.rawValue), "The accessory view the client shows at the row's trailing edge.")
        case .height:
            reference("dimension", "The row's height.")
        case .estimatedHeight:
            reference("dimension", "The row's estimated height.")
        case .onSelect:
            reference("actions", "What selecting the row does; the row is selectable exactly when it has it.")
        case .onSwitch:
            [
                "type": "object",
                "description": "{\"set\": KEY}: stores the switch's new value in the bool state key KEY.",
                "required": [.string(ActionName.set.rawValue)],
                "properties": [ActionName.set.rawValue: ["type": "string", "description": "A bool state key."]],
                "additionalProperties": false,
            ]
        case .onDelete:
            reference(
                "actions", "What deleting the row does, usually {\"remove\": LIST}; the row is deletable exactly when it has it.")
        case .onMove:
            [
                "type": "object",
                "description":
                    "Only with forEach, and without sort: {\"move\": LIST}, the row's own list: the user may drag the row among the rows of its list, and the item moves in LIST. The row carries \"movable\": true exactly when it has it.",
                "required": ["move"],
                "properties": ["move": ["type": "string", "description": "The list the row repeats over."]],
                "additionalProperties": false,
            ]
        case .leadingActions:
            swipeActions("revealed by a swipe from the leading edge")
        case .trailingActions:
            swipeActions("revealed by a swipe from the trailing edge")
        case .accessibilityLabel:
            reference("template", "What an assistive technology reads as the row's name; on the wire only when given.")
        case .accessibilityHint:
            reference("template", "What selecting the row does, read after its label; on the wire only when given.")
        case .accessibilityValue:
            reference("template", "The row's value as an assistive technology reads it; on the wire only when given.")
        case .onEdit:
            [
                "description":
                    "Only on input rows: {\"set\": KEY} stores the edited value in KEY, a string key for textField, picker, segmented and datePicker, a number key for slider and stepper, or with {\"set\": \"item.FIELD\"} in a field of that type of the row's or the screen's item; or actions (neither \"call\" nor \"submit\"), in which the expression value is the edited value, of that type. The row is editable exactly when it has it and is enabled. A secure text field has none: it stores nothing.",
                "anyOf": [
                    [
                        "type": "object",
                        "required": [.string(ActionName.set.rawValue)],
                        "properties": [ActionName.set.rawValue: ["type": "string", "description": "A state key of the kind's type, or item.FIELD."]],
                        "additionalProperties": false,
                    ],
                    reference("actions", "Actions in which the expression value is the edited value."),
                ],
            ]
        case .validate:
            [
                "type": "array",
                "description":
                    "Only on input rows: rules, in order; once the row is touched (edited, or its form's submit tried), the message of the first rule its value fails shows as its \"error\". Each rule has one check and a \"message\" (a template).",
                "items": validationRule,
            ]
        }
    }

    private static func swipeActions(_ edge: String) -> JSONValue {
        [
            "type": "array",
            "description": .string(
                "Swipe actions \(edge), in order; ids are unique across the row's leadingActions and trailingActions. The row carries those whose visibleWhen holds."
            ),
            "items": [
                "type": "object",
                "required": ["id", "title", "onAction"],
                "properties": [
                    "id": [
                        "type": "string", "minLength": 1,
                        "description": "What an action event names: POST /v1/screens/{id}/action with {\"row\", \"action\": ID}.",
                    ],
                    "title": reference("template", "The button's title."),
                    "style": enumeration(SwipeAction.Style.allCases.map(\.rawValue), "normal when left out; destructive draws it red."),
                    "visibleWhen": reference(fieldDefinition(.bool), "When false, the row does not show the action, and refuses it."),
                    "onAction": reference("actions", "What choosing the action does."),
                ],
                "additionalProperties": false,
            ],
        ]
    }

    private static var validationRule: JSONValue {
        let message: JSONValue = ["$ref": "#/$defs/template", "description": "What the user reads under the row while the rule fails."]
        func rule(_ name: RuleName, _ argument: JSONValue, _ description: String) -> JSONValue {
            [
                "type": "object", "description": .string(description), "required": [.string(name.rawValue), "message"],
                "properties": [name.rawValue: argument, "message": message], "additionalProperties": false,
            ]
        }
        let cases: [JSONValue] = RuleName.allCases.map { name in
            switch name {
            case .required:
                rule(name, ["const": true], "Not empty after trimming whitespace and newlines; for a choice or a date, something chosen.")
            case .minLength, .maxLength:
                rule(name, ["type": "integer", "minimum": 0], "At least / at most this many characters (text fields); passes on an empty value.")
            case .pattern:
                rule(name, ["type": "string"], "The whole value matches this regular expression (Swift Regex syntax; text fields); passes on an empty value.")
            case .min, .max:
                rule(
                    name, ["type": ["number", "string"]],
                    "Not below / not above: a number (sliders, steppers, text fields read as numbers) or a date picker's value in its mode's format; passes on an empty value."
                )
            case .equals:
                rule(name, ["type": "string", "minLength": 1], "The same value as another input row of this screen, by its id.")
            case .when:
                rule(name, ["$ref": .string("#/$defs/\(fieldDefinition(.bool))")], "A condition over state that must hold.")
            }
        }
        return ["oneOf": .array(cases)]
    }

    /// The fields of an input kind that are literals, not expressions (see
    /// `DefinitionReader.readInputFields`).
    private static func inputLiteralFields(_ kind: String) -> [(name: String, schema: JSONValue, required: Bool)] {
        let options: JSONValue = [
            "description":
                "The options: a list of {\"id\", \"title\"} with distinct non-empty ids and template titles, or {\"forEach\": LIST, \"id\": TEMPLATE, \"title\": TEMPLATE}, one option per item of a list key.",
            "oneOf": [
                [
                    "type": "array", "minItems": 1,
                    "items": [
                        "type": "object", "required": ["id", "title"], "additionalProperties": false,
                        "properties": ["id": ["type": "string", "minLength": 1], "title": ["$ref": "#/$defs/template"]],
                    ],
                ],
                [
                    "type": "object", "required": ["forEach", "id", "title"], "additionalProperties": false,
                    "properties": [
                        "forEach": ["type": "string", "description": "A list state key."],
                        "id": ["$ref": "#/$defs/template"], "title": ["$ref": "#/$defs/template"],
                    ],
                ],
            ],
        ]
        let dateBound: JSONValue = ["type": "string", "description": "A value in the mode's format: \"2026-11-28\", \"14:30\" or \"2026-11-28T14:30\"."]
        switch kind {
        case "textField":
            return [
                (
                    "contentType",
                    enumeration(TextContentType.allCases.map(\.rawValue), "What the field holds, for the keyboard and autofill; text when left out."), false
                ),
                ("secure", ["type": "boolean", "description": "Hides what is typed; always true for password and newPassword, whatever this says."], false),
                ("multiline", ["type": "boolean", "description": "Lets the text span lines."], false),
                ("maxLength", ["type": "integer", "minimum": 1, "description": "The most characters the field accepts."], false),
            ]
        case "slider", "stepper":
            let step = kind == "slider" ? "0 (continuous) or above; 0 when left out" : "above 0; 1 when left out"
            return [
                ("min", ["type": "number", "description": "The smallest value."], true),
                ("max", ["type": "number", "description": "The largest value, not below min."], true),
                ("step", ["type": "number", "minimum": 0, "description": .string("The step, counted from min: \(step).")], false),
            ]
        case "picker", "segmented":
            return [("options", options, true)]
        case "datePicker":
            return [
                ("mode", enumeration(DateMode.allCases.map(\.rawValue), "What the picker chooses; date when left out."), false),
                ("min", dateBound, false), ("max", dateBound, false),
            ]
        default:
            return []
        }
    }

    // MARK: - Actions

    private static var action: JSONValue {
        [
            "description":
                .string(
                    "An action: an object with exactly one of \(ActionName.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))."
                ),
            "oneOf": .array(
                ActionName.allCases.map { name in
                    let (argument, description) = schema(for: name)
                    var properties = JSONObject([name.rawValue: argument])
                    // A navigation to an item screen names the item.
                    if name == .navigate { properties["item"] = reference("template", "The id of the item an item screen shows: a template.") }
                    return [
                        "type": "object",
                        "description": .string(description),
                        "required": [.string(name.rawValue)],
                        "properties": .object(properties),
                        "additionalProperties": false,
                    ]
                }),
        ]
    }

    private static func schema(for action: ActionName) -> (argument: JSONValue, description: String) {
        switch action {
        case .toggle:
            (["type": "string", "description": "A bool state key."], "{\"toggle\": KEY} flips a bool key.")
        case .set:
            (
                [
                    "type": "object",
                    "minProperties": 1,
                    "description":
                        "Scalar state keys and their new values: a string is a template for a string key, and an expression (or one {{ expression }}) for a bool or number key.",
                    "additionalProperties": ["type": ["boolean", "number", "string"]],
                ],
                "{\"set\": {KEY: VALUE, ...}} sets scalar keys; all values are computed before any is stored."
            )
        case .navigate:
            (
                reference("safeID", "The id of a screen of the catalogue."),
                "{\"navigate\": SCREEN} is an effect: the client shows another screen; to an item screen, with \"item\": TEMPLATE, the id of the item to show. It does not change state."
            )
        case .back:
            (["const": true], "{\"back\": true} is an effect: the client returns to the screen it came from.")
        case .open:
            (reference("template", "The URL: a template."), "{\"open\": URL} is an effect: the client opens a URL. It does not change state.")
        case .remove:
            (
                ["type": "string", "description": "The list the row repeats over."],
                "{\"remove\": LIST} removes the row's own item from LIST; only in a \"forEach\" row over that list, or on an item screen of LIST (its item)."
            )
        case .submit:
            (
                ["type": "string", "description": "A form of this screen (its sections' \"form\")."],
                "{\"submit\": FORM} touches every visible input row of the form and checks its rules; when one fails, the actions after it do not run. A selection's body may carry \"values\" for the form's rows, applied as edits first."
            )
        case .reset:
            (
                ["type": "string", "description": "A form of this screen."],
                "{\"reset\": FORM} sets the keys the form's rows store into back to their defaults and clears their touched marks and the backend's errors."
            )
        case .append:
            (
                [
                    "type": "object",
                    "required": ["to", "item"],
                    "properties": [
                        "to": ["type": "string", "description": "A list state key."],
                        "item": [
                            "type": "object",
                            "description":
                                "Every field of the list's items (id may be left out): a template for a string field, an expression for a bool or number field, computed before the item is added.",
                            "additionalProperties": ["type": ["boolean", "number", "string"]],
                        ],
                        "at": enumeration(ItemAppend.Place.allCases.map(\.rawValue), "end (the default) or start."),
                    ],
                    "additionalProperties": false,
                ],
                "{\"append\": {\"to\": LIST, \"item\": {...}, \"at\": \"end\"}} adds an item to a list. Without an id Tabula gives one of lowercase letters and digits, the same for a retried event; an id the list holds already is 422 duplicate-item."
            )
        case .call:
            (
                [
                    "type": "string", "pattern": "^(?!\\.{1,2}$)[A-Za-z0-9._~-]+$",
                    "description": "The backend's action: a URL path segment (letters, digits, \"-\", \".\", \"_\", \"~\").",
                ],
                "{\"call\": ACTION} asks the app's backend within the event (POST to --actions-url/ACTION, signed) and applies its answer: a state merge patch, errors on input rows (the actions after it then do not run) and effects. At most one per action list."
            )
        }
    }

    // MARK: - Kinds and fields

    private static func kindSchema(builtIn kinds: [String]) -> JSONValue {
        [
            "type": "string",
            "description": .string("The kind: \(kinds.joined(separator: ", ")), or a custom kind declared under \"kinds\"."),
            "anyOf": [enumeration(kinds, "A built-in kind."), ["description": "A custom kind declared under \"kinds\"."]],
        ]
    }

    /// When the object's kind is `kind`, it has these fields, and the `optional` ones it may
    /// have (and, besides the members every object of its sort has, no others).
    private static func kindCase(
        _ kind: String, fields: [(name: String, type: ScalarType, required: Bool)], optional: [(name: String, schema: JSONValue)] = [],
        alsoRequired: [String] = []
    ) -> JSONValue {
        var properties = JSONObject()
        for field in fields { properties[field.name] = fieldSchema(field.type) }
        for field in optional { properties[field.name] = field.schema }
        return [
            "if": ["properties": ["kind": ["const": .string(kind)]], "required": ["kind"]],
            "then": [
                "properties": .object(properties),
                "required": .array((fields.filter(\.required).map(\.name) + alsoRequired).map(JSONValue.string)),
            ],
        ]
    }

    /// A custom kind's fields are declared under `"kinds"`: any member besides the common
    /// ones is a field, a scalar or an expression or template string.
    private static func customKindCase(builtIn kinds: [String], commonMembers: [String]) -> JSONValue {
        var common = JSONObject()
        for member in commonMembers { common[member] = true }
        return [
            "if": ["properties": ["kind": ["not": enumeration(kinds, nil)]], "required": ["kind"]],
            "then": [
                "properties": .object(common),
                "additionalProperties": [
                    "type": ["boolean", "number", "string"],
                    "description":
                        "A field of the custom kind, as its declaration under \"kinds\" types it: a template for a string field; a literal or an expression for a bool or number field.",
                ],
            ],
        ]
    }

    private static func fieldSchema(_ type: ScalarType) -> JSONValue {
        switch type {
        case .string: ["$ref": "#/$defs/template"]
        case .bool, .number: ["$ref": .string("#/$defs/\(fieldDefinition(type))")]
        }
    }

    private static func fieldDefinition(_ type: ScalarType) -> String {
        switch type {
        case .string: "template"
        case .bool: "boolExpression"
        case .number: "numberExpression"
        }
    }

    private static func jsonType(_ type: ScalarType) -> String {
        switch type {
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        }
    }

    // MARK: - Building blocks

    private static func objectSchema(_ members: [(String, JSONValue)], required: [String], description: String) -> JSONObject {
        var properties = JSONObject()
        for (name, schema) in members { properties[name] = schema }
        return JSONObject([
            "type": "object",
            "description": .string(description),
            "required": .array(required.map(JSONValue.string)),
            "properties": .object(properties),
            "additionalProperties": false,
        ])
    }

    private static func reference(_ definition: String, _ description: String) -> JSONValue {
        ["$ref": .string("#/$defs/\(definition)"), "description": .string(description)]
    }

    /// A custom kind's fields named like the built-in kinds' fields, each with the types it
    /// may take (``RowMember/builtInFieldTypes``), or `false` when it may not be declared.
    private static var builtInFieldTypes: JSONObject {
        var properties = JSONObject()
        for (field, types) in RowMember.builtInFieldTypes.sorted(by: { $0.key.utf8Precedes($1.key) }) {
            properties[field] = types.isEmpty ? .bool(false) : enumeration(types.map(\.rawValue).sorted(), nil)
        }
        return properties
    }

    private static func enumeration(_ values: [String], _ description: String?) -> JSONValue {
        var schema = JSONObject()
        schema["enum"] = .array(values.map(JSONValue.string))
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    /// A character as it stands in a regular expression's character class, escaped when
    /// it has a meaning there (ECMA-262 with the `u` flag escapes no other).
    private static func regexClassCharacter(_ character: Character) -> String {
        #"\^$.*+?()[]{}|/-"#.contains(character) ? "\\\(character)" : String(character)
    }
}
