import TabulaCore

/// One call of the app's backend, as an event that reached a `call` action asks it:
/// `POST URL/ACTION` with the body
/// `{"action", "eventId", "item"?, "session": {"id", "subject", "revision", "client"}, "screen", "row", "values", "state"}`
/// (`item` on an item screen: the id of the item it shows).
///
/// `values` is every input row of the form a submit checked before the call, secure rows
/// included (the only place their values go; the body is never logged or stored), `{}`
/// when no submit ran; `session.revision` is the revision the event started from; `state`
/// the session's values after the actions before the call.
struct BackendCall: Sendable {
    let pending: PendingCall
    /// The event's `eventId`, or one the service made: the call's `Idempotency-Key`.
    let eventID: String
    let sessionID: String
    let subject: String?
    let revision: Int
    let client: ClientContext
    let screen: String
    /// On an item screen, the item it shows.
    var item: String? = nil
    let row: String

    var action: String { pending.action }

    var body: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512)
        writer.beginObject()
        writer.key("action"); writer.string(pending.action)
        writer.key("eventId"); writer.string(eventID)
        if let item {
            writer.key("item"); writer.string(item)
        }
        writer.key("row"); writer.string(row)
        writer.key("screen"); writer.string(screen)
        writer.key("session")
        writer.beginObject()
        writer.key("client"); writer.write(client.json)
        writer.key("id"); writer.string(sessionID)
        writer.key("revision"); writer.int(revision)
        writer.key("subject")
        if let subject { writer.string(subject) } else { writer.null() }
        writer.endObject()
        writer.key("state"); writer.write(pending.state.valuesJSON)
        writer.key("values")
        writer.beginObject()
        for (row, value) in pending.values {
            writer.key(row)
            writer.write(value?.json ?? .null)
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
