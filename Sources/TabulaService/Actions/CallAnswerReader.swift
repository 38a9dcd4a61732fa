import TabulaCore

/// Reads the backend's answer to a call: status 200 and a JSON object
/// `{"state"?: MERGE-PATCH, "errors"?: {ROW: MESSAGE}, "effects"?: [EFFECT]}`. Anything else
/// is the backend's fault, and the reason says what is wrong with it (502 `action-failed`).
///
/// The state patch is checked as a backend's `PATCH` of the state is: each key it sets must
/// be declared by the catalogue, with a value of its type; `null` sets a key back to its
/// default. Effects are written as event results write them, each screen one the catalogue
/// has and each URL of an allowed scheme. The rows errors name are checked against the
/// screen when the answer is applied (``EventProcessor``).
struct CallAnswerReader: Sendable {
    let schema: StateSchema
    let urlSchemes: URLSchemes
    /// The catalogue's screen with an id, if there is one.
    let screen: @Sendable (String) -> ScreenDefinition?

    struct Failure: Error {
        let reason: String
    }

    func read(status: Int, body: [UInt8]) throws(Failure) -> CallAnswer {
        guard status == 200 else { throw Failure(reason: "it answered HTTP \(status), not 200") }
        let json: JSONValue
        do {
            json = try JSONParser(maxDepth: JSONBody.maxDepth).parse(body)
        } catch {
            throw Failure(reason: "its answer is not JSON (\(error))")
        }
        guard case .object(let members) = json else { throw Failure(reason: "its answer is \(json.typeName), not a JSON object") }
        var answer = CallAnswer()
        for (name, value) in members.pairs {
            switch name {
            case "state": answer.values = try values(value)
            case "errors": answer.errors = try errors(value)
            case "effects": answer.effects = try effects(value)
            default:
                throw Failure(reason: "its answer has the member \"\(name.clippedForDetail)\", which Tabula does not know (it knows state, errors and effects)")
            }
        }
        return answer
    }

    /// A merge patch of the state's values: members replace keys, `null` restores a default
    /// (a state value is a scalar or a list, never an object to merge into).
    private func values(_ patch: JSONValue) throws(Failure) -> [String: StateValue] {
        guard case .object(let members) = patch else { throw Failure(reason: "its \"state\" is \(patch.typeName), not a merge patch object") }
        var given = JSONObject()
        var values: [String: StateValue] = [:]
        for (key, value) in members.pairs {
            guard value == .null else {
                given[key] = value
                continue
            }
            guard let declaration = schema.declarations[key] else {
                throw Failure(reason: "its \"state\" removes \"\(key.clippedForDetail)\", which no screen declares")
            }
            values[key] = declaration.defaultValue
        }
        let decoded: SessionState
        do throws(StateDecodingError) {
            decoded = try schema.state(from: .object(given))
        } catch {
            throw Failure(reason: "its \"state\" does not fit the screens' state: \(String(describing: error).clipped(at: 512))")
        }
        for key in given.keys { values[key] = decoded.values[key] }
        return values
    }

    private func errors(_ value: JSONValue) throws(Failure) -> [String: String] {
        guard case .object(let members) = value else { throw Failure(reason: "its \"errors\" is \(value.typeName), not an object of row ids and messages") }
        var errors: [String: String] = [:]
        for (row, message) in members.pairs {
            guard case .string(let text) = message, !text.isEmpty else {
                throw Failure(reason: "its error for row \"\(row.clippedForDetail)\" is not a message (a non-empty string)")
            }
            errors[row] = text
        }
        return errors
    }

    private func effects(_ value: JSONValue) throws(Failure) -> [Effect] {
        guard case .array(let elements) = value else { throw Failure(reason: "its \"effects\" is \(value.typeName), not an array") }
        var effects: [Effect] = []
        for (index, element) in elements.enumerated() {
            let place = "its effects[\(index)]"
            guard case .object(let members) = element, case .string(let type)? = members["type"] else {
                throw Failure(reason: "\(place) is not an object with a \"type\"")
            }
            let item = members["item"]
            switch (type, members.count - (item == nil ? 0 : 1), members["screen"], members["url"]) {
            case ("navigate", 2, .string(let target)?, nil):
                guard let definition = screen(target) else {
                    throw Failure(reason: "\(place) navigates to \"\(target)\", which is not a screen of the catalogue")
                }
                switch (definition.item, item) {
                case (nil, nil): effects.append(.navigate(screen: target))
                case (_?, .string(let id)?) where !id.isEmpty: effects.append(.navigate(screen: target, item: id))
                case (nil, _?): throw Failure(reason: "\(place) names an item, but \"\(target)\" is not an item screen")
                case (_?, _): throw Failure(reason: "\(place) navigates to the item screen \"\(target)\" without an \"item\" (an item id)")
                }
            case ("back", 1, nil, nil) where item == nil:
                effects.append(.back)
            case ("openURL", 2, nil, .string(let url)?) where item == nil:
                if let refusal = urlSchemes.refusal(ofURL: url) { throw Failure(reason: "\(place) opens \"\(url.clippedForDetail)\": \(refusal)") }
                effects.append(.openURL(url))
            default:
                throw Failure(
                    reason:
                        "\(place) is not {\"type\": \"navigate\", \"screen\": ID, \"item\"?: ID}, {\"type\": \"back\"} or {\"type\": \"openURL\", \"url\": URL}"
                )
            }
        }
        return effects
    }
}
