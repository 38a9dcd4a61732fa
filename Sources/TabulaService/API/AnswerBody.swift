import TabulaCore

/// The body of an answer that brings a client's copy of a screen forward: an event result
/// (with `effects`, and `submit` when a submit ran) or a `changes` answer (without).
/// `{"changes", "definition", "effects"?, "fromRevision", "item"?, "screen", "submit"?,
/// "toRevision"}`, keys in ascending order as in every answer; `item` on an item screen.
enum AnswerBody {
    static func encode(
        _ definition: ScreenDefinition, item: String? = nil, from: Int, to: Int, changes: ChangeSet, effects: [Effect]? = nil,
        submit: SubmitResult? = nil
    ) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512)
        writer.beginObject()
        writer.key("changes"); writer.write(changes)
        writer.key("definition"); writer.string(definition.definitionID)
        if let effects { writer.list(#""effects":[]"#, effects) { $0.write($1) } }
        writer.key("fromRevision"); writer.int(from)
        if let item {
            writer.key("item"); writer.string(item)
        }
        writer.key("screen"); writer.string(definition.id)
        if let submit {
            writer.key("submit")
            writer.beginObject()
            writer.key("form"); writer.string(submit.form)
            writer.key("valid"); writer.bool(submit.valid)
            writer.endObject()
        }
        writer.key("toRevision"); writer.int(to)
        writer.endObject()
        return writer.bytes
    }
}
