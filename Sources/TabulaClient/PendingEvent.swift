import TabulaModel

/// An event waiting in the handle's queue, or in flight. Its body, `eventId` included, is
/// fixed when it is first sent, so every retry is the same request and applies once.
struct PendingEvent: Sendable {
    var event: ClientEvent
    let eventID: String
    /// The request body, once sent.
    private(set) var body: [UInt8]?
    /// The copy the body names.
    private(set) var named: (revision: Int, definition: String?)?
    /// Whether this is the one retry after a `409` (a stale copy).
    var resent = false
    /// A drop the copy could not show (into another section, past the end): sent as it was
    /// made, for the service to refuse, with no place among the user's moves.
    var sentAsMade = false

    init(event: ClientEvent) {
        self.event = event
        eventID = Self.newEventID()
    }

    /// Fixes the body, naming `copy`.
    mutating func prepare(copy: Screen, item: String?) {
        named = (copy.revision, copy.definition)
        var writer = JSONWriter()
        writer.beginObject()
        switch event {
        case .selection(_, let values):
            if !values.isEmpty {
                writer.key("values")
                writer.beginObject()
                for (row, value) in values.sorted(by: { $0.key < $1.key }) {
                    writer.key(row)
                    writer.write(value.json)
                }
                writer.endObject()
            }
        case .toggle(_, let isOn):
            writer.key("isOn")
            writer.bool(isOn)
        case .deletion:
            break
        case .edit(_, let value):
            writer.key("value")
            writer.write(value.json)
        case .move(_, let destination):
            writer.key("to")
            writer.beginObject()
            writer.key("section")
            writer.int(destination.section)
            writer.key("row")
            writer.int(destination.row)
            writer.endObject()
        case .action(_, let action):
            writer.key("action")
            writer.string(action)
        }
        writer.key("row")
        writer.string(event.row)
        writer.key("eventId")
        writer.string(eventID)
        writer.key("revision")
        writer.int(copy.revision)
        if let definition = copy.definition {
            writer.key("definition")
            writer.string(definition)
        }
        writer.endObject()
        body = writer.bytes
    }

    /// The copy as the user saw it when they made the event: what its answer starts from.
    func seen(in copy: Screen) -> Screen {
        switch event {
        case .edit(let row, let value):
            copy.showing(value, inRow: row)
        case .selection(_, let values):
            values.reduce(copy) { screen, entry in screen.showing(entry.value, inRow: entry.key) }
        case .move(let row, let destination):
            copy.moving(row: row, to: destination) ?? copy
        case .toggle, .deletion, .action:
            copy
        }
    }

    /// 128 random bits, hex: unique per session for as long as the service keeps answers.
    private static func newEventID() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<32).map { _ in digits[Int(generator.next() % 16)] })
    }
}

extension ClientEvent {
    func isEdit(of row: String) -> Bool {
        if case .edit(let edited, _) = self { edited == row } else { false }
    }
}
